# PersistenceBench. `make bench` runs the default benchmark; `make test` runs the tests.
SWIFT ?= swift
RUN_ARGS ?=
# The package whose release build provides the tool: this one, unless told otherwise. CI passes
# TOOL_PACKAGE=Benchmarks: the nested package builds the same modules in release for its suites anyway, so the
# tool built there costs CI one release build instead of two.
TOOL_PACKAGE ?= .
TOOL = $(TOOL_PACKAGE)/.build/release/persistbench

.PHONY: fuzz bench sweep merge test build deps need-deps smoke smoke-search smoke-live smoke-crash check check-counters check-time check-findings counter-baseline \
	benchmarks example example-checks example-baseline format lint check-workflows clean

# The default matrix (one store of each strategy, the CRUD workloads and the limits, 10k and 100k, 3 repetitions, each
# cell's loop of questions time-boxed at 500 ms) into results/latest/, replacing the last run there: under 5 minutes on
# a 2-core VM, build excluded. It starts with an estimate of its time from the committed default run (BENCH_ESTIMATE).
BENCH_ESTIMATE ?= --estimate-from results/2026-12-07-default
bench: build
	$(TOOL) run --replace $(BENCH_ESTIMATE) $(RUN_ARGS)

# The tests, after a build that fails on any compiler warning in the project's own code (its dependencies' are
# theirs): a warning shows in a clean build (CI's), not again in an incremental one.
test: need-deps
	@mkdir -p .build
	$(SWIFT) build --build-tests >.build/build-tests.log 2>&1; status=$$?; cat .build/build-tests.log; exit $$status
	@if grep -E '^$(CURDIR)/(Sources|Tests|Plugins|Benchmarks/Benchmarks)/[^:]+:[0-9]+:[0-9]+: warning:' \
		.build/build-tests.log; then echo "FAILED: the compiler warned about the project's code (above)"; exit 1; fi
	$(SWIFT) test --skip-build

# The tool, and beside it libWriteRecorder.so, which `persistbench crash --power-loss/--faults` loads into writers,
# and libOperationCounter.so, which `persistbench run --count` loads into counted cells.
build: need-deps
	cd $(TOOL_PACKAGE) && $(SWIFT) build -c release --product persistbench \
		&& $(SWIFT) build -c release --product WriteRecorder && $(SWIFT) build -c release --product OperationCounter

# The scale sweep (README, "Runs split over machines"; docs/commands.md): the default stores and the workloads an app lives by, 10k to 10M in steps of
# √10, 3 repetitions up to 1M and 1 above (SWEEP_REPETITIONS), into results/sweep/. Hours on one 2-core machine:
# SHARD=K/N runs part K of N (each (workload, scale) group whole) into results/sweep-K-of-N/, on this machine or
# another, and `make merge` joins the parts. SWEEP_ARGS adds options (--stores …). A cell has 30 minutes
# (SWEEP_BUDGETS), not the default 10: sqlite's insert of 10M records stopped at 8.99M in 10 minutes on a 2-core VM.
SWEEP_SCALES ?= 10k,30k,100k,300k,1M,3M,10M
SWEEP_WORKLOADS ?= insert,insert-each,get,page,update,observe,search,open,import
SWEEP_ARGS ?=
SWEEP_REPETITIONS ?= --repetitions 3 --single-repetition-above 1M
SWEEP_BUDGETS ?= --time-budget 30m
# A shard's cut evens out the time each part is estimated to take from an earlier sweep's cells (SWEEP_ESTIMATE).
SWEEP_ESTIMATE ?= --estimate-from results/2026-11-27-flagship-sweep/merged
SWEEP_OUT = results/sweep$(if $(SHARD),-$(subst /,-of-,$(SHARD)))
sweep: build
	$(TOOL) run --scales $(SWEEP_SCALES) --workloads $(SWEEP_WORKLOADS) $(SWEEP_REPETITIONS) $(SWEEP_BUDGETS) \
		$(if $(SHARD),--shard $(SHARD) $(SWEEP_ESTIMATE)) --out $(SWEEP_OUT) $(SWEEP_ARGS)

# Joins every results/sweep-K-of-N/ into results/sweep/ (SHARDS names other directories).
SHARDS ?= $(wildcard results/sweep-*-of-*)
merge: build
	$(TOOL) merge $(SHARDS) --out results/sweep --replace

# The default stores (or SMOKE_ARGS's) and every CRUD workload at 10k, once; fails unless every digest agrees and every cell finishes.
# SMOKE_ARGS="--stores sqlite,json,plist" narrows it (CI: the stores its baseline check does not cover, beside sqlite).
SMOKE_ARGS ?=
smoke: build
	$(TOOL) run --scales 10k --repetitions 1 --out results/smoke --replace --strict $(SMOKE_ARGS)

# Search as you type at 10k, once, on every default store and the full-text variants, with the writes an index must
# follow (durable inserts, updates, deletes); fails unless every digest agrees and every cell finishes. SEARCH_ARGS
# adds options.
SEARCH_ARGS ?=
smoke-search: build
	$(TOOL) run --workloads search,insert-each,update,delete --scales 10k --repetitions 1 --out results/smoke-search \
		--replace --strict --stores $$($(TOOL) list --names search) $(SEARCH_ARGS)

# The live workloads (reads during an import, observed queries, a second process, a pinned snapshot) at 10k, once, the
# default stores; fails unless every digest agrees and every cell finishes. Not in the default matrix: each cell reads
# for seconds at a fixed rate. LIVE_ARGS adds options (CI: `--stores $$(persistbench list --names live)`, every store
# but json and plist, whose 1,000 observed commits each rewrite the whole file, minutes at 10k, and orm's single
# SwiftData mechanisms).
LIVE_ARGS ?=
smoke-live: build
	$(TOOL) run --workloads import,read-while-import,observe,observe-burst,two-processes,pinned-reader --scales 10k \
		--repetitions 1 --out results/smoke-live \
		--replace --strict $(LIVE_ARGS)

# Durability at 2k items: every store with a promise killed 5 times, 40 power-loss crash states and 40 two-crash
# states (a crash state reopened, written on and cut again), 6 injected faults; fails unless every store keeps its
# promise (README, "Durability").
smoke-crash: build
	$(TOOL) crash --kills 5 --power-loss 40 --crashes 2 --faults 6 --scale 2k --out results/smoke-crash --replace

# The regression checks CI runs (README, "Regression checks"): the counters, then the time against BASE.
check: check-counters check-time check-findings

# What is published, against what the committed runs give: README's findings and docs/findings.md's figures computed
# again from their results (docs/findings.json declares them), and every committed run's report.md, results.csv and
# charts rendered again by this build from its results.json (committed runs only: not what a check beside writes).
# Exit 1 names each figure or run that differs.
check-findings: build
	$(TOOL) findings --check
	$(TOOL) report --check $$(git ls-files 'results/*results.json' | xargs -n1 dirname | sort)

# What no machine changes, judged against the committed counted baselines (made on any host): their matrices counted
# now under callgrind into results/check-counters/ (about 10 minutes on 2 cores); exit 1 on a regression, and on a
# counter better than its band until the baseline is remade (COUNTER_ARGS=--better-expected lets it pass).
COUNTER_BASELINES = results/counter-baseline results/counter-baseline-workloads results/counter-baseline-variants \
	results/counter-baseline-shape
COUNTER_ARGS ?=
check-counters: build
	$(TOOL) check $(foreach baseline,$(COUNTER_BASELINES),--counters $(baseline)) --out results/check-counters \
		--replace $(COUNTER_ARGS)

# Time, judged against the revision BASE built now (in .build/check-base/, kept between checks) and timed in turn
# with this build on this machine, 5 repetitions each, into results/check-time/; exit 1 if this build is slower.
# BASE=HEAD on an unchanged tree is the false-alarm check. TIME_ARGS adds options (CI: --skip-stores json).
BASE ?= HEAD~1
TIME_ARGS ?=
check-time: build
	$(TOOL) check --base $(BASE) --out results/check-time --replace $(TIME_ARGS)

# Makes the committed counted baselines again (after a change the counter check rightly flags, or one that makes a
# store better, or to add a host's run beside them), each a matrix of its own at 2k, counted: every CRUD path of the
# counted stores (`persistbench list --names counted`); every other workload a counted run can repeat on one store of
# each engine (`counted-engines`); the variants that exist to be compared on the paths they change
# (`counted-variants`); the records of a shape (`wide`: 40 columns of every type) through one store of each engine,
# at 1k (a cell is named by store, workload and scale, and the gate joins the four matrices: at
# 2k its `get` would be the items' `get`). Not counted: work paced by the clock or raced by threads, or done in
# another process (docs/regression-checks.md).
COUNTED_WORKLOADS = insert,insert-each,get,scan,count-where,page,update,delete,write-then-page
COUNTED_READS = get-zipfian,get-batch,get-warm,get-batch-loop,count-range,search,search-one-statement
COUNTED_YCSB = ycsb-a,ycsb-b,ycsb-c,ycsb-d,ycsb-e,ycsb-f
COUNTED_WRITES = import,cascade-delete,unique-title,profile-ingest
COUNTED_QUERIES = teams-per-sport,ordered-rooms,profile-window
COUNTED_FLOORS = engine-insert,engine-get,limit-write,limit-scan
COUNTED_ENGINE_WORKLOADS = $(COUNTED_READS),$(COUNTED_YCSB),$(COUNTED_WRITES),$(COUNTED_QUERIES),$(COUNTED_FLOORS)
COUNTED_VARIANT_WORKLOADS = get,get-batch,page,search,insert-each,update,delete
COUNTED_RUN = $(TOOL) run --count --scales 2k --repetitions 1 --replace
counter-baseline: build
	$(COUNTED_RUN) --stores $$($(TOOL) list --names counted) --workloads $(COUNTED_WORKLOADS) \
		--out results/counter-baseline
	$(COUNTED_RUN) --stores $$($(TOOL) list --names counted-engines) --workloads $(COUNTED_ENGINE_WORKLOADS) \
		--out results/counter-baseline-workloads
	$(COUNTED_RUN) --stores $$($(TOOL) list --names counted-variants) --workloads $(COUNTED_VARIANT_WORKLOADS) \
		--out results/counter-baseline-variants
	$(TOOL) run --count --scales 1k --repetitions 1 --replace --shape wide --stores $$($(TOOL) list --names counted-engines) \
		--out results/counter-baseline-shape

# Coverage-guided fuzzing (libFuzzer through `swiftc -sanitize=fuzzer`) of the readers of what a user or a crash hands
# the tool: a shape file, results.json, packed's files, the write recorder's log (Sources/FuzzTargets). Each target runs
# FUZZ_SECONDS from its committed corpus (Tests/FuzzCorpus/<target>/, which the tests replay); what it adds stays in a
# temporary directory, and an input that traps is kept as results/fuzz/<target>-crash-… and fails the step. Each
# target's log, with its executions and coverage, is results/fuzz/<target>.log.
FUZZ_SECONDS ?= 30
FUZZ_TARGETS = shape results packed write-log
FUZZ_BUILD = .build-fuzz
fuzz: need-deps
	$(SWIFT) build --build-path $(FUZZ_BUILD) --product persistbench-fuzz -Xswiftc -sanitize=fuzzer \
		-Xswiftc -DFUZZING -Xswiftc -use-ld=lld -Xlinker --allow-multiple-definition
	@mkdir -p results/fuzz
	@for target in $(FUZZ_TARGETS); do \
		added=$$(mktemp -d); status=0; \
		PERSISTBENCH_FUZZ_TARGET=$$target $(FUZZ_BUILD)/debug/persistbench-fuzz -max_total_time=$(FUZZ_SECONDS) \
			-timeout=10 -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
			-artifact_prefix=results/fuzz/$$target- $$added Tests/FuzzCorpus/$$target \
			>results/fuzz/$$target.log 2>&1 || status=$$?; \
		rm -rf $$added; \
		echo "$$target: $$(grep -E 'stat::number_of_executed_units' results/fuzz/$$target.log | sed 's/.*: *//') executions in" \
			"$(FUZZ_SECONDS) s, $$(grep -E 'DONE' results/fuzz/$$target.log | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [^ ]+')"; \
		if [ $$status != 0 ]; then tail -40 results/fuzz/$$target.log; echo "FAILED: $$target trapped (results/fuzz/)"; exit 1; fi; \
	done

# The package-benchmark suites (nested package Benchmarks/): every store × core workload at 10k, gated on malloc
# counts and bytes written against the thresholds committed in Benchmarks/Thresholds/.
benchmarks: need-deps
	cd Benchmarks && $(SWIFT) package benchmark thresholds check --no-progress

# A store from another package (Examples/FileStore: `files`, one JSON file per item), as a user benchmarks their
# own: built in EXAMPLE_PACKAGE (its own package, or Benchmarks/, which depends on it, as CI builds it), run beside
# sqlite at 2k (every digest must agree), then gated by its committed counted baseline. `files` reads every file
# for counts and pages (20 s a cell at 2k): those are left out here, not hidden (Examples/FileStore/README.md).
EXAMPLE_PACKAGE ?= Examples/FileStore
EXAMPLE_TOOL = $(EXAMPLE_PACKAGE)/.build/release/filebench
EXAMPLE_WORKLOADS = insert,insert-each,get,get-batch,scan,update,delete
# One set of flags for the three products: a product built with others would rebuild every module.
EXAMPLE_SWIFT_BUILD = $(SWIFT) build -c release
EXAMPLE_BUILD = cd $(EXAMPLE_PACKAGE) && for product in filebench OperationCounter WriteRecorder; do \
	$(EXAMPLE_SWIFT_BUILD) --product $$product || exit 1; done
example: need-deps
	$(EXAMPLE_BUILD)
	$(EXAMPLE_TOOL) run --stores files,files+worker,sqlite --workloads $(EXAMPLE_WORKLOADS) --scales 2k --repetitions 1 --strict \
		--out results/example --replace
	$(EXAMPLE_TOOL) check --counters Examples/FileStore/baseline --out results/example-check --replace

# The example's threaded store and its durability, after `make example` built its tool: `files+worker` hands every
# call to a thread of its own, so its kind declares system calls and waits scheduling-dependent (shown, not judged) and
# its counted baseline has 3 repetitions (faults and reads may move over their range). EXAMPLE_CHECKS counts of this unchanged build must each pass, then one with an extra lookup injected
# (FILEBENCH_EXTRA_QUERY) must fail. Then `crash` checks `files` (its IntegrityCheckingStore conformance) as
# smoke-crash checks the built-in stores: kills, power-loss states, two crashes, faults.
EXAMPLE_CHECKS ?= 10
EXAMPLE_WORKER_BASELINE = Examples/FileStore/baseline-worker
example-checks: need-deps
	@for check in $$(seq $(EXAMPLE_CHECKS)); do \
		$(EXAMPLE_TOOL) check --counters $(EXAMPLE_WORKER_BASELINE) --out results/example-worker-check-$$check \
			--replace >results/example-worker-check-$$check.log 2>&1 \
			|| { cat results/example-worker-check-$$check.log; echo "FAILED: check $$check of an unchanged build"; exit 1; }; \
		echo "files+worker, unchanged build, check $$check of $(EXAMPLE_CHECKS): $$(tail -1 results/example-worker-check-$$check.log)"; \
	done
	@FILEBENCH_EXTRA_QUERY=1 $(EXAMPLE_TOOL) check --counters $(EXAMPLE_WORKER_BASELINE) --out results/example-worker-injected \
		--replace >results/example-worker-injected.log 2>&1; status=$$?; \
		grep -A3 '^FAIL' results/example-worker-injected.log; \
		if [ $$status != 1 ] || ! grep -q 'files+worker get 2k: instructions/op' results/example-worker-injected.log; \
			then cat results/example-worker-injected.log; \
			echo "FAILED: an extra lookup injected into files+worker exited $$status without failing get's instructions"; \
			exit 1; fi; \
		echo "files+worker with an extra lookup injected: the check failed, as it must"
	$(EXAMPLE_TOOL) crash --stores files --kills 5 --power-loss 40 --crashes 2 --faults 6 --scale 2k \
		--out results/example-crash --replace

# Makes the example's counted baselines again (after a change to `files` or to what a counted run records).
example-baseline: need-deps
	$(EXAMPLE_BUILD)
	$(EXAMPLE_TOOL) run --count --stores files --workloads $(EXAMPLE_WORKLOADS) --scales 2k --repetitions 1 \
		--out Examples/FileStore/baseline --replace
	$(EXAMPLE_TOOL) run --count --stores files+worker --workloads get,update --scales 2k --repetitions 3 \
		--out $(EXAMPLE_WORKER_BASELINE) --replace

# What the stores link and the tests use is not installed behind anyone's back: the targets that need it stop with
# a message naming what is missing and `make deps`.
DEPS_PRESENT = pkg-config --exists sqlite3 lmdb 2>/dev/null && command -v sqlite3 >/dev/null && command -v mdb_stat >/dev/null \
	&& command -v valgrind >/dev/null && test -f /usr/include/valgrind/callgrind.h
need-deps:
	@if ! { $(DEPS_PRESENT); }; then \
		echo "missing SQLite's or LMDB's development files (pkg-config sqlite3 lmdb), the sqlite3/mdb_stat tools or valgrind:"; \
		echo "run 'make deps' once (apt-get install; uses sudo when not root), or install them with your package manager"; \
		exit 1; \
	fi

# Installs what the stores link and the tests use (Debian/Ubuntu) when missing: the SQLite and LMDB libraries,
# pkg-config, the sqlite3 and mdb_stat tools (tests open the stores' files with them, as an outside user would), and
# valgrind (the counter check counts instructions with callgrind; libOperationCounter includes its header).
deps:
	@if ! { $(DEPS_PRESENT); }; then \
		echo "Installing libsqlite3-dev, liblmdb-dev, pkg-config, sqlite3, lmdb-utils and valgrind"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq \
			libsqlite3-dev liblmdb-dev pkg-config sqlite3 lmdb-utils valgrind; \
	fi

format:
	$(SWIFT) format --in-place --recursive Package.swift Plugins Sources Tests Benchmarks/Package.swift Benchmarks/Benchmarks \
		Examples/FileStore/Package.swift Examples/FileStore/Sources

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Plugins Sources Tests Benchmarks/Package.swift Benchmarks/Benchmarks \
		Examples/FileStore/Package.swift Examples/FileStore/Sources

# Validates .github/workflows/ against GitHub's workflow schema with check-jsonschema (from PyPI, in a virtual
# environment under .build/; the schema ships with it).
check-workflows:
	python3 -m venv .build/ci-tools
	.build/ci-tools/bin/pip install --quiet --disable-pip-version-check check-jsonschema
	.build/ci-tools/bin/check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml

clean:
	rm -rf .build Benchmarks/.build results/smoke results/smoke-live results/smoke-crash results/check results/check-counters results/check-time
