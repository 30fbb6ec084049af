package eventstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Connect opens a pool on url, creating the database first if it is missing.
// Unless url sets pool_max_conns, the pool holds up to 16 connections:
// pgxpool's default (the CPU count, at least 4) starves the HTTP handlers
// while every projection runner holds one.
func Connect(ctx context.Context, url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = max(16, cfg.MaxConns)
	}
	// Idle connections go back to the server after 30 s (pgxpool keeps
	// them 30 min): a quiet instance holds what its listener and runners
	// use, not its last burst's peak, so instances sharing one PostgreSQL
	// leave its max_connections to the busy ones.
	if !strings.Contains(url, "pool_max_conn_idle_time") {
		cfg.MaxConnIdleTime = 30 * time.Second
	}
	if !strings.Contains(url, "pool_health_check_period") {
		cfg.HealthCheckPeriod = 10 * time.Second
	}
	cfg.ConnConfig.Tracer = &counter{}
	if err := EnsureDatabase(ctx, url); err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("reach database: %w", err)
	}
	return pool, nil
}

// connConfig is the connection part of url: pgxpool's parser takes the
// pool_* parameters out (pgx's own would send them to the server, which
// refuses them).
func connConfig(url string) (*pgx.ConnConfig, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	return cfg.ConnConfig, nil
}

// EnsureDatabase creates the database named in url if it does not exist,
// connecting to the server's "postgres" database to do so.
func EnsureDatabase(ctx context.Context, url string) error {
	cfg, err := connConfig(url)
	if err != nil {
		return fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err == nil {
		return conn.Close(ctx)
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "3D000" { // invalid_catalog_name
		return fmt.Errorf("connect to database: %w", err)
	}
	name := cfg.Database
	admin := cfg.Copy()
	admin.Database = "postgres"
	aconn, err := pgx.ConnectConfig(ctx, admin)
	if err != nil {
		return fmt.Errorf("connect to server to create database %q: %w", name, err)
	}
	defer aconn.Close(ctx)
	_, err = aconn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	// Several instances starting at once race to create it: the loser
	// sees duplicate_database, or, when both passed the catalog's check,
	// a unique violation on pg_database's name index.
	if err != nil && !(errors.As(err, &pgErr) && (pgErr.Code == "42P04" || pgErr.Code == "23505")) {
		return fmt.Errorf("create database %q: %w", name, err)
	}
	return nil
}

// DropDatabase drops the database named in url (tests use it to clean up).
func DropDatabase(ctx context.Context, url string) error {
	cfg, err := connConfig(url)
	if err != nil {
		return err
	}
	name := cfg.Database
	if name == "" || strings.EqualFold(name, "postgres") {
		return fmt.Errorf("refusing to drop database %q", name)
	}
	cfg.Database = "postgres"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	return err
}

func jitter(n int) int { return rand.IntN(n) }
