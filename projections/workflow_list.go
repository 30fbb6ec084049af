package projections

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	sq "github.com/Masterminds/squirrel"
	"github.com/jackc/pgx/v5"
)

// Limits of GET /api/rigor/workflows (spec A).
const (
	// MaxSearchLength is the longest q accepted, in characters.
	MaxSearchLength = 200
	// MaxSearchTerms is how many distinct terms of q are matched.
	MaxSearchTerms = 8
	// FolderUnassigned is the folder_id of workflows in no folder.
	FolderUnassigned = "unassigned"
)

// SearchTerms splits q by spec A's rules: whitespace and every character
// other than letters, digits and _ - . / + # @ & ' separate terms; terms are
// lowercased and deduplicated, and the first MaxSearchTerms distinct ones
// kept. A q made only of separators has no terms (no filter).
func SearchTerms(q string) []string {
	fields := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_-./+#@&'", r))
	})
	var terms []string
	for _, f := range fields {
		if len(terms) == MaxSearchTerms {
			break
		}
		if !slices.Contains(terms, f) {
			terms = append(terms, f)
		}
	}
	return terms
}

// likeEscaper makes a term literal in a LIKE pattern (only _ can occur in a
// term, the others are separators; escaped all the same).
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// Cursor is a position in the listing: the last row of a page.
type Cursor struct {
	CreatedAt  time.Time
	WorkflowID string
}

// ErrBadCursor is a cursor this service did not hand out.
var ErrBadCursor = errors.New("cursor is not one from pagination.cursor")

// Encode renders the cursor opaque: base64url of "<created_at µs>.<id>".
func (c Cursor) Encode() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.CreatedAt.UnixMicro(), 10) + "." + c.WorkflowID))
}

// DecodeCursor parses what Encode made.
func DecodeCursor(s string) (Cursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Cursor{}, fmt.Errorf("%w: %w", ErrBadCursor, err)
	}
	micros, id, ok := strings.Cut(string(raw), ".")
	us, err := strconv.ParseInt(micros, 10, 64)
	if !ok || err != nil || id == "" {
		return Cursor{}, ErrBadCursor
	}
	return Cursor{CreatedAt: time.UnixMicro(us).UTC(), WorkflowID: id}, nil
}

// WorkflowFilter selects an org's workflows for the listing.
type WorkflowFilter struct {
	OrgID string
	// Statuses: any of them (empty: all).
	Statuses []string
	TaskType string
	// CreatedAfter and CreatedBefore are exclusive bounds.
	CreatedAfter, CreatedBefore *time.Time
	CountsTowardLimit           *bool
	// Terms must all occur in the title or the description (SearchTerms).
	Terms []string
	// FolderID: "" matches every workflow, FolderUnassigned those in no
	// folder, a folder id those in that folder of the org (an id of no
	// folder of the org matches none).
	FolderID string
	// After continues the listing past a cursor.
	After *Cursor
	Limit int
}

// WorkflowSummary is one row of the listing.
type WorkflowSummary struct {
	WorkflowID        string
	Status            string
	TaskType          string
	CurrentStep       int
	TotalSteps        int
	CreditsCharged    int
	CreatedAt         time.Time
	StartedAt         *time.Time
	CompletedAt       *time.Time
	Title             string
	Excerpt           string // the first 200 characters of the description
	CountsTowardLimit bool
	ApprovalStatus    *string
	Error             *string
	HaltReason        *string
	HaltedAtStep      *int
}

// WorkflowPage is a page of the listing.
type WorkflowPage struct {
	Workflows []WorkflowSummary
	// Next is the cursor of the following page; nil on the last one.
	Next *Cursor
	// Total counts every workflow the filter selects, on all pages.
	Total int64
	// Active counts the org's workflows that count toward the concurrent
	// limit, whatever the filter.
	Active int64
}

// TxStarter begins transactions (a pool or a connection).
type TxStarter interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// searchScanLimit is the size of an org (workflows) up to which q is
// answered by reading the org's rows in order rather than through the
// trigram index: the index's cost grows with the whole table (its posting
// lists hold every org), a scan's only with the org.
var searchScanLimit int64 = 10_000

// ListWorkflows answers a page of the org's workflows, newest first
// (created_at, then workflow_id, descending), with the total under the same
// filter and the org's active count, read in one snapshot.
func ListWorkflows(ctx context.Context, db TxStarter, f WorkflowFilter) (WorkflowPage, error) {
	var out WorkflowPage
	err := pgx.BeginTxFunc(ctx, db, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var orgSize int64
		b := &pgx.Batch{}
		// Orgs differ in size by orders of magnitude: a generic plan of a
		// cached statement, made for an average org, can be a disaster for a
		// large one, so every statement is planned for its values. And a
		// count over a large org may cost past jit_above_cost, where
		// compiling takes longer than the query.
		b.Queue("SET LOCAL plan_cache_mode = force_custom_plan")
		b.Queue("SET LOCAL jit = off")
		b.Queue(`SELECT coalesce(sum(n), 0)::bigint, coalesce(sum(n) FILTER (WHERE counts_toward_limit), 0)::bigint
			FROM `+countsTable.Name+` WHERE org_id = $1`, f.OrgID).QueryRow(func(row pgx.Row) error { return row.Scan(&orgSize, &out.Active) })
		if len(f.Terms) == 0 {
			if err := queuePage(b, pageQuery(f), &out, nil); err != nil {
				return err
			}
			if err := queueCount(b, countQuery(f), &out); err != nil {
				return err
			}
			return tx.SendBatch(ctx, b).Close()
		}
		// q: the matches are found once, for the page and the total
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return err
		}
		b = &pgx.Batch{}
		if orgSize <= searchScanLimit {
			b.Queue("SET LOCAL enable_bitmapscan = off") // the trigram index is used through bitmap scans only
		}
		if err := queuePage(b, searchPageQuery(f), &out, &out.Total); err != nil {
			return err
		}
		if err := tx.SendBatch(ctx, b).Close(); err != nil || len(out.Workflows) > 0 || f.After == nil {
			return err
		}
		b = &pgx.Batch{} // a cursor past the last match: the total is counted apart
		if err := queueCount(b, countQuery(f), &out); err != nil {
			return err
		}
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return WorkflowPage{}, fmt.Errorf("list workflows: %w", err)
	}
	if len(out.Workflows) > f.Limit {
		out.Workflows = out.Workflows[:f.Limit]
		last := out.Workflows[f.Limit-1]
		out.Next = &Cursor{CreatedAt: last.CreatedAt, WorkflowID: last.WorkflowID}
	}
	return out, nil
}

// queuePage queues the page query; total, if given, receives the column
// that follows the summary's.
func queuePage(b *pgx.Batch, q sq.SelectBuilder, out *WorkflowPage, total *int64) error {
	sql, args, err := q.ToSql()
	if err != nil {
		return err
	}
	b.Queue(sql, args...).Query(func(rows pgx.Rows) error {
		var err error
		out.Workflows, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (WorkflowSummary, error) {
			var s WorkflowSummary
			dst := []any{&s.WorkflowID, &s.Status, &s.TaskType, &s.CurrentStep, &s.TotalSteps, &s.CreditsCharged, &s.CreatedAt,
				&s.StartedAt, &s.CompletedAt, &s.Title, &s.Excerpt, &s.CountsTowardLimit, &s.ApprovalStatus, &s.Error,
				&s.HaltReason, &s.HaltedAtStep}
			if total != nil {
				dst = append(dst, total)
			}
			return s, row.Scan(dst...)
		})
		return err
	})
	return nil
}

func queueCount(b *pgx.Batch, q sq.SelectBuilder, out *WorkflowPage) error {
	sql, args, err := q.ToSql()
	if err != nil {
		return err
	}
	b.Queue(sql, args...).QueryRow(func(row pgx.Row) error { return row.Scan(&out.Total) })
	return nil
}
