package secrets

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// configDir points os.UserConfigDir at a new temporary directory and
// returns it.
func configDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	return filepath.Join(dir, "config")
}

// env returns a getenv serving vars.
func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// logLines returns a logger writing JSON lines to buf.
func logLines(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(buf, nil))
}

func TestLoadFromEnv(t *testing.T) {
	cfg := configDir(t)
	key := strings.Repeat("ab", KeySize)
	var logs bytes.Buffer
	box, err := Load(env(map[string]string{EnvKey: key}), logLines(&logs))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := hex.DecodeString(key)
	same, _ := NewBox(raw)
	if got, err := same.Open(box.Seal([]byte("x"))); err != nil || string(got) != "x" {
		t.Errorf("box does not use the key of %s: %q, %v", EnvKey, got, err)
	}
	if !strings.Contains(logs.String(), EnvKey) || strings.Contains(logs.String(), key) {
		t.Errorf("log %q should name %s and not show the key", logs.String(), EnvKey)
	}
	if _, err := os.Stat(filepath.Join(cfg, "svc")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a key directory was created although %s is set", EnvKey)
	}
}

func TestLoadBadEnv(t *testing.T) {
	configDir(t)
	for _, v := range []string{
		"abc",
		strings.Repeat("ab", KeySize-1),
		strings.Repeat("ab", KeySize+1),
		strings.Repeat("zz", KeySize),
		strings.Repeat("a", 2*KeySize+1),
	} {
		_, err := Load(env(map[string]string{EnvKey: v}), logLines(&bytes.Buffer{}))
		if !errors.Is(err, ErrBadKey) || !strings.Contains(err.Error(), EnvKey) {
			t.Errorf("%s=%q: error = %v, want ErrBadKey naming the variable", EnvKey, v, err)
		}
	}
}

func TestLoadCreatesKeyFile(t *testing.T) {
	cfg := configDir(t)
	var logs bytes.Buffer
	box, err := Load(env(nil), logLines(&logs))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(cfg, "svc", "secret.key")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", fi.Mode().Perm())
	}
	di, _ := os.Stat(filepath.Dir(path))
	if di.Mode().Perm() != 0o700 {
		t.Errorf("key directory mode %v, want 0700", di.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	hexKey := strings.TrimSpace(string(data))
	if len(hexKey) != 2*KeySize {
		t.Fatalf("key file holds %q", data)
	}
	if !strings.Contains(logs.String(), path) || strings.Contains(logs.String(), hexKey) {
		t.Errorf("log %q should name the file and not show the key", logs.String())
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("key directory holds %d entries, want only the key file", len(entries))
	}

	// A second start reads the same key, and says so without warning.
	logs.Reset()
	again, err := Load(env(nil), logLines(&logs))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := again.Open(box.Seal([]byte("kept"))); err != nil || string(got) != "kept" {
		t.Errorf("second Load uses another key: %q, %v", got, err)
	}
	var line struct{ Level, Msg string }
	if err := json.Unmarshal(bytes.Split(logs.Bytes(), []byte("\n"))[0], &line); err != nil || line.Level != "INFO" {
		t.Errorf("second start logs %q", logs.String())
	}
}

func TestLoadConcurrentStartsAgree(t *testing.T) {
	configDir(t)
	const n = 8
	boxes := make([]*Box, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			b, err := Load(env(nil), logLines(&bytes.Buffer{}))
			if err != nil {
				t.Error(err)
			}
			boxes[i] = b
		})
	}
	wg.Wait()
	sealed := boxes[0].Seal([]byte("x"))
	for i, b := range boxes {
		if b == nil {
			continue
		}
		if _, err := b.Open(sealed); err != nil {
			t.Errorf("start %d has another key: %v", i, err)
		}
	}
}

func TestLoadBadKeyFile(t *testing.T) {
	cfg := configDir(t)
	path := filepath.Join(cfg, "svc", "secret.key")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(env(nil), logLines(&bytes.Buffer{}))
	if !errors.Is(err, ErrBadKey) || !strings.Contains(err.Error(), path) {
		t.Errorf("error = %v, want ErrBadKey naming %s", err, path)
	}
}

func TestLoadWarnsOnOpenPermissions(t *testing.T) {
	cfg := configDir(t)
	path := filepath.Join(cfg, "svc", "secret.key")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Repeat("cd", KeySize)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	if _, err := Load(env(nil), logLines(&logs)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "readable by others") {
		t.Errorf("no warning about mode 0644: %s", logs.String())
	}
}
