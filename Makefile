# autosel-bot developer targets. `make test` is the README's test command and
# what CI (.ci/run) runs.
GO ?= go
export PATH := /usr/local/go/bin:$(PATH)

.PHONY: test build bench fuzz-seeds example eval eval-split tidy-check man completion

build:
	$(GO) build ./...

# Install test dependencies (Debian packages, kernel tree), then run every test
# (fuzz seed corpora included) with vet, staticcheck and deadcode (go.mod
# tools: `go tool staticcheck` needs nothing beyond the module proxy). A
# function no command and no test reaches fails the run.
test:
	bash .ci/setup.sh
	$(MAKE) tidy-check
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	@dead=$$($(GO) tool deadcode -test ./...); [ -z "$$dead" ] || { echo "unreachable functions:"; echo "$$dead"; exit 1; }
	CI=$${CI:-true} $(GO) test -count=1 -timeout 80m ./...

# Benchmarks (speed and memory targets live here, not in timed tests).
bench:
	bash scripts/bench.sh

# Measure the rules on the evaluation corpus (eval/README.md): recall, false
# alarms, variants, per-case tables, for the train and the test split.
# EVAL_SPLIT=train|test runs one split; EVAL_DIR=dir runs it on another corpus
# of the same format; AUTOSEL_KERNEL_SRC overrides the Linux 6.1 tree. A
# measurement, not a pass/fail test.
EVAL_DIR ?= eval
eval:
	$(GO) run ./eval/cmd/eval -dir "$(EVAL_DIR)"

# Give the cases added to the corpus their split (eval/split.yaml), frozen
# by the hash of their names.
eval-split:
	$(GO) run ./eval/cmd/eval -assign -dir "$(EVAL_DIR)"

# Run the bot's main job on the bundled example data.
example:
	$(GO) run ./cmd/autosel-bot replay testdata/seeds/*.mbox

# go.mod and go.sum must be what `go mod tidy` makes of them (direct
# dependencies not marked indirect, no stale sums); CI fails otherwise.
tidy-check:
	@$(GO) mod tidy -diff || { echo "go.mod/go.sum are not tidy: run go mod tidy" >&2; exit 1; }

# Man pages of every command (section 1) and of the configuration
# (autosel-bot.yaml.5), into man/ (man -l man/autosel-bot.1).
MANDIR ?= man
man:
	$(GO) run ./cmd/autosel-bot man --dir $(MANDIR)

# Shell completion scripts (flag values too: --format, --fail-on), into completion/.
completion:
	mkdir -p completion
	for sh in bash zsh fish; do $(GO) run ./cmd/autosel-bot completion $$sh > completion/autosel-bot.$$sh; done
