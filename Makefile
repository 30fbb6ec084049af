# svc: see README.md. Targets need Go and a PostgreSQL 15+ on DATABASE_URL
# (default postgres://postgres@127.0.0.1:5432/svc).

GO      ?= go
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

# golangci-lint, pinned; installed into bin/ from the Go module proxy when
# missing or of another version (.golangci.yml holds the rules).
GOLANGCI_VERSION := 2.15.0
GOLANGCI         := bin/golangci-lint

# mailpit, pinned: the real SMTP server the black-box tests send mail
# through and read it back from (its HTTP API); installed into bin/.
MAILPIT_VERSION := 1.27.11
MAILPIT         := bin/mailpit
export MAILPIT_BIN := $(CURDIR)/$(MAILPIT)

# stripe-mock, pinned: the payment processor's API the black-box tests
# point STRIPE_API_BASE at (its OpenAPI spec is stripe-go v86's API
# version, dahlia); installed into bin/.
STRIPE_MOCK_VERSION := 0.203.0
STRIPE_MOCK         := bin/stripe-mock
export STRIPE_MOCK_BIN := $(CURDIR)/$(STRIPE_MOCK)

# Redocly CLI, pinned: lints the OpenAPI document (http/openapi_lint_test.go);
# installed into bin/redocly when npm exists, else that test is skipped.
REDOCLY_VERSION := 2.77.0
REDOCLY         := bin/redocly/node_modules/.bin/redocly
export REDOCLY_BIN := $(CURDIR)/$(REDOCLY)

# The official MCP TypeScript SDK, pinned: its client drives the tool
# servers in the black-box tests (test/blackbox/mcp_client_test.go);
# installed into bin/mcpclient when npm exists, else those tests skip.
MCP_SDK_VERSION := 1.32.2
export MCP_CLIENT_DIR := $(CURDIR)/bin/mcpclient
# The MCP Inspector, pinned: its CLI mode lists and calls the tools of both
# MCP servers in the black-box tests; installed into bin/mcpinspector.
MCP_INSPECTOR_VERSION := 2.12.0
export MCP_INSPECTOR_DIR := $(CURDIR)/bin/mcpinspector

.PHONY: build run test vet lint tools bench clean

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/svc ./cmd/svc

run: build
	./bin/svc serve

vet:
	$(GO) vet ./...

tools:
	@$(GOLANGCI) version 2>/dev/null | grep -q "version $(GOLANGCI_VERSION) " || { \
		echo "installing golangci-lint v$(GOLANGCI_VERSION) into bin/"; \
		GOBIN=$(CURDIR)/bin $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v$(GOLANGCI_VERSION); }
	@test -f bin/.mailpit-$(MAILPIT_VERSION) && test -x $(MAILPIT) || { \
		echo "installing mailpit v$(MAILPIT_VERSION) into bin/"; \
		GOBIN=$(CURDIR)/bin $(GO) install github.com/axllent/mailpit@v$(MAILPIT_VERSION) && touch bin/.mailpit-$(MAILPIT_VERSION); }
	@test -f bin/.stripe-mock-$(STRIPE_MOCK_VERSION) && test -x $(STRIPE_MOCK) || { \
		echo "installing stripe-mock v$(STRIPE_MOCK_VERSION) into bin/"; \
		GOBIN=$(CURDIR)/bin $(GO) install github.com/stripe/stripe-mock@v$(STRIPE_MOCK_VERSION) && touch bin/.stripe-mock-$(STRIPE_MOCK_VERSION); }
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || command -v google-chrome >/dev/null || \
		echo "chromium not found: the browser tests (GET /docs, the dashboard) will be SKIPPED (apt-get install chromium; .ci/run installs it)"
	@if ! command -v npm >/dev/null; then echo "npm not found: the Redocly lint of the OpenAPI document will be skipped"; \
	elif ! test -f bin/.redocly-$(REDOCLY_VERSION) || ! test -x $(REDOCLY); then \
		echo "installing @redocly/cli v$(REDOCLY_VERSION) into bin/redocly"; \
		npm install --prefix bin/redocly --no-audit --no-fund --loglevel=error @redocly/cli@$(REDOCLY_VERSION) && touch bin/.redocly-$(REDOCLY_VERSION); fi
	@if command -v npm >/dev/null && ! test -f bin/.mcp-sdk-$(MCP_SDK_VERSION); then \
		echo "installing @modelcontextprotocol/sdk v$(MCP_SDK_VERSION) into bin/mcpclient"; \
		npm install --prefix bin/mcpclient --no-audit --no-fund --loglevel=error @modelcontextprotocol/sdk@$(MCP_SDK_VERSION) && touch bin/.mcp-sdk-$(MCP_SDK_VERSION); fi
	@if command -v npm >/dev/null && ! test -f bin/.mcp-inspector-$(MCP_INSPECTOR_VERSION); then \
		echo "installing @modelcontextprotocol/inspector v$(MCP_INSPECTOR_VERSION) into bin/mcpinspector"; \
		npm install --prefix bin/mcpinspector --no-audit --no-fund --loglevel=error @modelcontextprotocol/inspector@$(MCP_INSPECTOR_VERSION) && touch bin/.mcp-inspector-$(MCP_INSPECTOR_VERSION); fi

# The architecture's import rules (depguard), unused code and staticcheck.
lint: tools
	$(GOLANGCI) run ./...

# Every package gets its own database, so packages run in parallel. The
# event store's tests hold transactions open on purpose (late commits), and
# the snapshot xmin they hold back is server-wide, so they run first, alone.
test: vet lint fuzz
	$(GO) test -race -count=1 -timeout 10m ./eventstore
	$(GO) test -race -count=1 -timeout 15m $$($(GO) list ./... | grep -v '/eventstore$$')

# Go native fuzzing of the request decoders (http/*_fuzz_test.go), a short
# budget per target: go test takes one -fuzz target per package and
# invocation, hence the loop. Plain go test runs their seeds every time.
FUZZTIME ?= 3s
.PHONY: fuzz
fuzz:
	@set -e; for f in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' http/*_test.go); do \
		echo "fuzz $$f ($(FUZZTIME))"; \
		$(GO) test -run='^$$' -fuzz="^$$f$$" -fuzztime=$(FUZZTIME) ./http; \
	done

bench: build
	bash test/bench/run.sh

clean:
	rm -rf bin
