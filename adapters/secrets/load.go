package secrets

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// EnvKey is the environment variable holding the key as 64 hex characters.
const EnvKey = "SVC_SECRET_KEY"

// KeyFile is the key file's path under os.UserConfigDir, used when EnvKey
// is unset.
const KeyFile = "svc/secret.key"

// ErrBadKey is returned by Load when EnvKey or the key file does not hold
// exactly 64 hex characters.
var ErrBadKey = errors.New("secrets: key must be 64 hex characters (32 bytes)")

// Load returns the service's Box. The key is EnvKey (read with getenv;
// nil means os.Getenv) when set, else the key file KeyFile under
// os.UserConfigDir, created with a random key (file 0600, new directories
// 0700) when missing. It logs which source is used, never the key. A file
// created here must be kept: without it, stored secrets cannot be opened.
func Load(getenv func(string) string, log *slog.Logger) (*Box, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if log == nil {
		log = slog.Default()
	}
	if v := strings.TrimSpace(getenv(EnvKey)); v != "" {
		key, err := parseKey(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", EnvKey, err)
		}
		log.Info("secret key from environment", "source", EnvKey)
		return NewBox(key)
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return nil, fmt.Errorf("secrets: %s unset and no config directory: %w", EnvKey, err)
	}
	path := filepath.Join(dir, filepath.FromSlash(KeyFile))
	key, created, err := loadOrCreate(path)
	if err != nil {
		return nil, err
	}
	if created {
		log.Warn("secret key file created; back it up, stored secrets cannot be read without it",
			"source", "file", "path", path, "env", EnvKey)
	} else {
		log.Info("secret key from file", "source", "file", "path", path, "env", EnvKey)
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		log.Warn("secret key file is readable by others; chmod 600 it", "path", path, "mode", fi.Mode().Perm().String())
	}
	return NewBox(key)
}

// parseKey decodes a 64-hex-character key.
func parseKey(s string) ([]byte, error) {
	key, err := hex.DecodeString(s)
	if err != nil || len(key) != KeySize {
		return nil, ErrBadKey
	}
	return key, nil
}

// loadOrCreate reads the key file at path or, when it does not exist,
// creates it with a random key. The new file is written beside path and
// then hard-linked into place, so a process starting at the same moment
// either sees a complete file or loses the race and reads the winner's.
func loadOrCreate(path string) (key []byte, created bool, err error) {
	key, err = readKeyFile(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, false, err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, false, fmt.Errorf("secrets: create key directory: %w", err)
	}
	key = make([]byte, KeySize)
	_, _ = rand.Read(key) // crypto/rand.Read never fails; it crashes instead
	tmp, err := os.CreateTemp(dir, ".secret.key-*")
	if err != nil {
		return nil, false, fmt.Errorf("secrets: create key file: %w", err)
	}
	defer os.Remove(tmp.Name())
	// CreateTemp makes the file 0600 already; Chmod states it.
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return nil, false, fmt.Errorf("secrets: create key file: %w", err)
	}
	if _, err := tmp.WriteString(hex.EncodeToString(key) + "\n"); err != nil {
		tmp.Close()
		return nil, false, fmt.Errorf("secrets: write key file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return nil, false, fmt.Errorf("secrets: write key file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return nil, false, fmt.Errorf("secrets: write key file: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			key, err = readKeyFile(path)
			return key, false, err
		}
		return nil, false, fmt.Errorf("secrets: create key file: %w", err)
	}
	return key, true, nil
}

// readKeyFile reads a key file: 64 hex characters, surrounding space
// ignored. A missing file gives an error wrapping fs.ErrNotExist.
func readKeyFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("secrets: read key file: %w", err)
	}
	key, err := parseKey(strings.TrimSpace(string(data)))
	if err != nil {
		return nil, fmt.Errorf("secrets: key file %s: %w", path, err)
	}
	return key, nil
}
