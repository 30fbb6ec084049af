// Package domain is the root of the service's aggregates. Each subpackage
// holds one aggregate: its events (the only way its state changes), the fold
// that rebuilds it from its stream, and the decisions that produce new events.
// Aggregates never touch the database; package commands loads them from the
// event store and appends what they decide.
package domain
