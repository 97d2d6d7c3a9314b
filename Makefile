# Every target runs from a fresh clone with only Go (and, for the interop
# tests, Node and npm) installed. `make check` is what CI runs.

SHELL       := bash
.SHELLFLAGS := -o pipefail -ec

GO       ?= go
FUZZTIME ?= 20s
BENCH    ?= .
COUNT    ?= 6
BENCHTIME ?= 300ms

# Modules nested in the repository, each with its own go.mod, so that the
# core module never depends on what they need (a provider SDK, an agent
# framework, NATS, OpenTelemetry, a peer SDK and benchstat; the agui
# command, for its --nats flag; the generator, for jennifer and a JSON
# Schema validator). vet, lint and test cover each of them as they cover
# the root; .ci/run reads this line to download their dependencies, and
# check-workspace holds go.work to it.
MODULES  := adapters/openai adapters/anthropic adapters/eino adapters/genkit runlog/nats otel bench cmd/agui gen

# go.work (at the root) joins the modules for people at a shell: it is what
# lets `go run ./cmd/agui` and `go build -o bin/agui ./cmd/agui` work from
# the root although cmd/agui is a module of its own. The targets below turn
# it off: each module is vetted and tested against its own go.mod, which is
# what someone who requires that module gets. (`./...` at the root names the
# core module's packages alone, with or without go.work.)
export GOWORK := off

.PHONY: all generate check-fmt check-generated check-workspace vet lint test check faults bench bench-report fuzz demo

all: check

# Regenerate every generated file from schema/events.json (agui/doc.go's
# go:generate line runs the generator from its module, gen/).
generate:
	$(GO) generate ./...

# Fail when regeneration would change a committed file (the generator's
# TestCommittedFilesUpToDate, in the test step, checks the same in memory).
# The generator is built with -race here, as its tests build it, so that a
# cold check compiles it and what it imports once.
check-generated:
	$(SUITE) generated

# vet, lint and test run every step over the root and each of MODULES,
# going on past a failure, and end with a summary of what failed
# (.ci/suite); check runs the three as one such pass after the quick checks.
# The steps run two at a time, a module's in order (.ci/suite);
# SUITE_JOBS=1 runs them one at a time.
SUITE := MODULES="$(MODULES)" GO="$(GO)" bash .ci/suite

vet:
	$(SUITE) vet

# The exhaustive-switch analyzer over the whole repository, MODULES included
# (built once, then run inside each module so that it loads that module).
lint:
	$(SUITE) lint

# The suite with -race, root and MODULES; then the packages whose behaviour
# changes with verification compiled out (build tag agui_noverify); then,
# without -race, the tests that guard allocation counts and memory (those
# that skip under the race detector, which skews both).
test:
	$(SUITE) test

# The durable runs' fault suite against real nats-server processes
# (runlog/nats, build tag faults): outages of 1s to 180s (SIGTERM and
# SIGKILL), a cluster node killed, a replica killed, 1,000 runs cut and
# reattached; the default writer (pipelined) without and with -race, then
# appends one at a time (Options.Window -1) with -race. About twelve
# minutes; CI runs it after check.
faults:
	$(SUITE) faults

# go.work names the root and every module of MODULES, no more, and the
# command builds through it from the root (as the README says to run it;
# with -race, as the tests build, so that a cold check compiles it once).
# adapters/genkit is in a workspace of its own (adapters/genkit/go.work):
# its dependencies and the Anthropic adapter's need two versions of
# invopop/jsonschema that cannot share one build list.
OWN_WORKSPACE := adapters/genkit

check-workspace:
	OWN_WORKSPACE="$(OWN_WORKSPACE)" $(SUITE) workspace

# What CI runs: the generated files and the workspace checked, vet, lint
# and tests, all as steps of one pass (.ci/suite), so that the quick checks'
# compiling shares the two workers with the rest; every step runs even when
# one fails.
check: check-fmt
	OWN_WORKSPACE="$(OWN_WORKSPACE)" $(SUITE) generated workspace vet lint test

# Fail when gofmt would change a tracked Go file, in any module (a sed over
# import paths once left import blocks out of order, and vet does not care).
check-fmt:
	@files="$$(gofmt -l $$(git ls-files '*.go'))"; \
	if [ -n "$$files" ]; then echo "gofmt would change:"; echo "$$files"; exit 1; fi

# Benchmarks, summarised with benchstat (figures are ratios against the
# encoding/json baselines measured in the same run). benchstat is a tool of
# the bench module (the tool line of its go.mod), run from there.
bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -count $(COUNT) ./... | tee bench.txt
	$(GO) -C bench tool benchstat bench.txt=$(CURDIR)/bench.txt
	@echo "raw results: bench.txt (not tracked)"

# agui-go beside its peers (the bench module): COUNT runs of every
# benchmark one after the other, so that the sides interleave, then
# BENCHMARKS.md rewritten from them (see its "Reading the noise").
# bench.txt records when the run was taken, on how many CPUs and under
# what load; EARLIER names the kept bench.txt of earlier runs (paths from
# the repository root), whose figures the report joins as ranges.
EARLIER ?=
bench-report:
	cd bench && $(GO) test -c -o bench.test .
	cd bench && { echo "date: $$(date -u +%Y-%m-%dT%H:%MZ)"; echo "ncpu: $$(nproc)"; \
	    echo "load-start: $$(cut -d' ' -f1-3 /proc/loadavg)"; } > bench.txt && \
	  for i in $$(seq $(COUNT)); do \
	    ./bench.test -test.run '^$$' -test.bench . -test.benchmem -test.benchtime $(BENCHTIME) | tee -a bench.txt; \
	  done && \
	  echo "load-end: $$(cut -d' ' -f1-3 /proc/loadavg)" >> bench.txt && \
	  $(GO) tool benchstat bench/bench.txt=bench.txt > benchstat.txt && \
	  $(GO) run ./report -in bench.txt $(foreach f,$(EARLIER),-in $(abspath $(f))) -benchstat benchstat.txt -out ../BENCHMARKS.md \
	    -cmd "make bench-report COUNT=$(COUNT) BENCHTIME=$(BENCHTIME)$(if $(EARLIER), EARLIER='$(EARLIER)')"

# Run every fuzz target (MODULES included) for FUZZTIME each.
fuzz:
	@set -e; for dir in . $(MODULES); do \
	  for pkg in $$(cd $$dir && $(GO) list ./...); do \
	    for target in $$(cd $$dir && $(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	      echo "== $$pkg $$target"; \
	      (cd $$dir && $(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg); \
	    done; \
	  done; \
	done

# The main job: serve the demo agent and exercise it end to end over HTTP
# (every scenario, each stream checked by both verifier profiles).
demo:
	cd cmd/agui && $(GO) run . demo --exercise
