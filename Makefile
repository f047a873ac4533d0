# PersistenceBench. `make bench` runs the default benchmark; `make test` runs the tests.
SWIFT ?= swift
RUN_ARGS ?=

.PHONY: bench test build deps smoke format lint clean

# The default matrix (every store, CRUD workloads, 10k and 100k, 3 repetitions) into results/latest/.
bench: deps
	$(SWIFT) build -c release
	.build/release/persistbench run $(RUN_ARGS)

test: deps
	$(SWIFT) test

build: deps
	$(SWIFT) build -c release

# Every store and CRUD workload at 10k, once; fails unless every digest agrees and every cell finishes.
smoke: build
	.build/release/persistbench run --scales 10k --repetitions 1 --out results/smoke --strict

# Installs the C libraries the stores link (Debian/Ubuntu) when pkg-config cannot find them.
deps:
	@if ! pkg-config --exists sqlite3 lmdb 2>/dev/null; then \
		echo "Installing libsqlite3-dev and liblmdb-dev"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq libsqlite3-dev liblmdb-dev pkg-config; \
	fi

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

lint:
	$(SWIFT) format lint --recursive Package.swift Sources Tests

clean:
	rm -rf .build results/smoke
