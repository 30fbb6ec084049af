// Package llm is the port workflow execution uses to call a language model:
// one [Request] describes a call structurally (a plan step, the synthesis of
// the deliverable, the independent review, the rewrite of a task
// description, the classification of one among the catalogue's task
// types, or the judgement of an agent's output on one criterion, for
// QualityGate) and a [Provider] answers it with a validated [Response].
//
// The port holds only what callers and providers share: the types, the
// Kind and Strategy constants, the errors, and the parsing and validation
// of answers. The providers live in subpackages, which import this one:
//
//   - offline (svc/adapters/llm/offline): the built-in writer,
//     deterministic and network-free, composing framework-shaped content
//     from the request itself.
//   - openai (svc/adapters/llm/openai): a client of an OpenAI-compatible
//     chat-completions API, with per-attempt timeouts, retries and cost
//     accounting.
//   - chain (svc/adapters/llm/chain): a primary provider, then an optional
//     fallback.
//   - providers (svc/adapters/llm/providers): FromEnv, which builds the
//     provider the service uses from the SVC_LLM_* environment, and
//     EmbedderFromEnv, the provider's embedder (openai.Embedder).
//   - classify (svc/adapters/llm/classify): planning's llm tier, a
//     planning.Fallback making KindClassify calls through a Provider.
//
// Two more subpackages serve the providers and the fake API of the tests
// (test/fakellm): frameworks knows the section headings a step of each
// framework writes, and prompt builds the chat messages of a request, with
// the machine-readable markers that tell a fake the kind of a call. Under
// internal/, textutil holds the text helpers the providers share and
// llmtest what their tests share.
//
// Every answer is validated for its kind before it is returned (ParseStep,
// ParseDeliverable, ParseReview, ParseEnhance, ParseClassification), so a
// caller can parse Response.Text without expecting a malformed answer.
// Direct execution adds two shapes (ValidateAnswer): a composed step call
// (Request.Frameworks, ParseComposed) and a synthesis that answers an
// output_contract's JSON (Request.Contract), passed through for the caller
// to validate.
package llm

import (
	"context"
	"errors"
	"time"

	"svc/domain/contract"
	"svc/domain/workflow"
)

// Kinds of call.
const (
	KindStep      = "step"      // one plan step (a framework applied to the task)
	KindSynthesis = "synthesis" // the terminal step: the deliverable
	KindReview    = "review"    // the independent quality review
	KindEnhance   = "enhance"   // rewrite a task description (enhance llm tier)
	KindClassify  = "classify"  // name a description's catalogue task type (planning's llm tier)
	// KindCheck judges an agent's output (Context) on one criterion
	// (Criterion: QualityGate's tone, factual_claims,
	// internal_consistency); it is answered in the review's shape
	// (ParseReview: score, summary, path_to_100 as the findings).
	KindCheck = "check"
)

// Strategies of a call: how much input it is given and how much it writes.
const (
	StrategyNormal     = ""           // full input, whole answer
	StrategyCompressed = "compressed" // shorter input: prior step summaries only, truncated text
	StrategyChunked    = "chunked"    // write (or review) only part Chunk of Chunks of the sections
)

// Section is one headed part of a step output or a deliverable: the
// workflow domain's section.
type Section = workflow.Section

// Deliverable is the workflow's result, a title and its sections: the
// workflow domain's deliverable.
type Deliverable = workflow.Deliverable

// PriorStep is the output of an earlier step, given to later calls.
type PriorStep struct {
	Step     int
	Name     string
	Summary  string
	Sections []Section
}

// Request is one call, described structurally; network providers build their
// chat messages from it (package prompt), the offline writer composes from
// it.
type Request struct {
	Kind        string
	Tier        int    // 1 or 2: SVC_LLM_MODEL or SVC_LLM_MODEL_TIER2
	Description string // the task in the user's words
	TaskType    string // catalogue id, e.g. "competitive_analysis"
	TaskLabel   string // e.g. "Competitive analysis"
	Title       string // the workflow's generated title
	Language    string // BCP 47, "" = English
	Context     string // additional_context
	Inherited   string // context inherited from a prior workflow (prior_workflow_id), rendered
	Guidance    string // revision guidance / approval notes / feedback, may be ""
	Framework   string // display name of the step's framework (KindStep), e.g. "SWOT Analysis"
	// Headings optionally names the sections a step must write (KindStep),
	// e.g. the catalogue framework's sections; empty: the writer's own
	// table for Framework (see frameworks.Headings).
	Headings []string
	// FrameworkDomain optionally gives the catalogue domain of Framework
	// ("strategy", "product", ...); it picks the fallback headings of a
	// framework the table does not know.
	FrameworkDomain  string
	Step, TotalSteps int
	Prior            []PriorStep  // outputs of earlier steps (KindStep, KindSynthesis)
	Deliverable      *Deliverable // KindReview: what to review
	Strategy         string       // "" normal, "compressed" (shorter input: summaries only), "chunked"
	// Chunk and Chunks select the part (0-based) of how many under the
	// chunked strategy; the sections are split into Chunks contiguous runs
	// of near-equal length, so Chunks must not exceed the number of sections.
	Chunk, Chunks int
	MaxTokens     int
	// Frameworks makes a KindStep call composed (direct execution): one
	// call writes the step of every framework named, in order (Framework
	// is then unused); the answer holds one step output per framework
	// (ParseComposed).
	Frameworks []string
	// Contract makes a KindSynthesis call answer the JSON the
	// output_contract describes instead of a deliverable (direct
	// execution); the caller validates the answer with Contract.Validate,
	// the port only requires text.
	Contract *contract.Contract
	// Choices are the task types a KindClassify call chooses from, in
	// catalogue order; the answer must name one of their ids
	// (ParseClassification).
	Choices []TaskChoice
	// Model pins the call to a model (a workspace's llm policy routed it):
	// a provider that does not serve it refuses the call with
	// ErrModelNotServed instead of using another. "": Tier's model.
	Model string
	// Criterion is what a KindCheck call judges the output in Context on
	// (CheckTone, CheckFactualClaims, CheckInternalConsistency).
	Criterion string
	// External is content read from context servers for the workflow
	// (its plan's, scanned for prompt injection): the prompts frame each
	// as data from its server and URI, not instructions (package prompt).
	External []External
}

// External is content read from a context server: the workflow domain's.
type External = workflow.ExternalContent

// Criteria of a KindCheck call.
const (
	CheckTone                = "tone"
	CheckFactualClaims       = "factual_claims"
	CheckInternalConsistency = "internal_consistency"
)

// Usage is the token count of a call.
type Usage struct{ PromptTokens, CompletionTokens int }

// Response is a successful call. Text is validated for its Kind (see Parse*).
type Response struct {
	Text     string
	Model    string
	Provider string // "offline", or the provider's host
	Usage    Usage
	CostUSD  float64
	Fallback bool // the primary failed and the fallback answered (spec code fallback_triggered)
	Attempts int  // HTTP attempts made in all
	Latency  time.Duration
}

// Provider answers calls.
type Provider interface {
	// Name identifies the provider in logs ("offline", a host, a chain).
	Name() string
	// Complete makes the call r, or returns why it failed.
	Complete(ctx context.Context, r Request) (Response, error)
}

// Errors of the port.
var (
	// ErrExhausted is returned by a chain (package chain) when every
	// provider failed (spec: 503 provider_exhausted).
	ErrExhausted = errors.New("all LLM providers failed")
	// ErrMalformed is an answer that is not valid for its kind.
	ErrMalformed = errors.New("malformed LLM answer")
	// ErrTimeout is a call that ran out of its time budget; errors.Is works
	// through the chain's wrapping.
	ErrTimeout = errors.New("LLM call timed out")
	// ErrBadRequest is a Request no provider can answer: an unknown kind, a
	// review without a deliverable, a chunk out of range.
	ErrBadRequest = errors.New("invalid LLM request")
	// ErrConfig is a provider configuration that cannot work, such as a base
	// URL that does not parse.
	ErrConfig = errors.New("invalid LLM provider configuration")
	// ErrModelNotServed is a call pinned to a model (Request.Model) the
	// provider does not serve; a chain then tries its fallback.
	ErrModelNotServed = errors.New("model not served by this provider")
)

// JSONKind reports whether answers of kind are JSON objects (every kind but
// KindEnhance).
func JSONKind(kind string) bool {
	return kind == KindStep || kind == KindSynthesis || kind == KindReview || kind == KindClassify || kind == KindCheck
}

// ValidKind reports whether kind is one of the Kind constants.
func ValidKind(kind string) bool { return JSONKind(kind) || kind == KindEnhance }
