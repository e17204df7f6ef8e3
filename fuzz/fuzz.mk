# libFuzzer targets (clang; Debian: clang libclang-rt-14-dev), included by the Makefile.
#   make fuzz         every fuzz/fuzz_<name>.c for FUZZ_SECONDS (default 60) each
#   make fuzz-smoke   the same with a short budget; fails on a crash or sanitizer error
# Each target starts from its seeds in fuzz/corpus/<name>/, copied to
# build/fuzz/corpus/<name>, so new inputs never land in the repository;
# crashing inputs go to build/fuzz/artifacts/<name>/, the log to
# build/fuzz/<name>.log.  A new fuzz/fuzz_<name>.c is picked up by itself;
# FUZZ_NAMES="path proc" on the command line runs some of them only.

FUZZ_CC         ?= clang
FUZZ_SECONDS    ?= 60
# smoke: runs per target, capped in seconds (about 3,700 runs/s for proc, 18,000 for path)
FUZZ_SMOKE_RUNS ?= 20000
FUZZ_SMOKE_TIME ?= 10
FUZZ_FLAGS      ?=

FUZZ_SAN   := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
              -fno-sanitize-recover=undefined
FUZZ_CFLAGS := $(CSTD) $(FUZZ_SAN) $(CWARNS) -Isrc/core -Isrc/sources -Isrc/providers -Isrc/capi
FUZZ_NAMES := $(patsubst fuzz/fuzz_%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_BINS  := $(addprefix build/fuzz/,$(FUZZ_NAMES))
# the core, the providers and the C API instrumented for coverage, apart from
# the gcc objects; an archive, so that each target links what it uses
FUZZ_OBJ   := $(patsubst src/%.c,build/fuzz/obj/%.o,$(CORE_SRC) $(PROV_SRC) $(wildcard src/capi/*.c))
FUZZ_LIB   := build/fuzz/obj/libperflib-fuzz.a

.PHONY: fuzz fuzz-smoke fuzz-build
.SECONDARY: $(FUZZ_OBJ)

build/fuzz/obj/%.o: src/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_LIB): $(FUZZ_OBJ)
	rm -f $@ && ar rcs $@ $^

build/fuzz/%: fuzz/fuzz_%.c $(FUZZ_LIB) $(HDRS) $(wildcard fuzz/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB) $(PROV_LIBS) -lm -lpthread

fuzz-build: $(FUZZ_BINS)

# $(call fuzz_run,<libFuzzer budget flags>): every target in turn, one
# summary line each; the exit status is 1 when any target crashed.
# libFuzzer's exit status and its crash-/leak-/timeout-/oom- artifacts both
# count, so a sanitizer report that exits without an artifact is not missed
# (slow-unit- artifacts are not failures).
define fuzz_run
rc=0; \
for n in $(FUZZ_NAMES); do \
  c=build/fuzz/corpus/$$n; a=build/fuzz/artifacts/$$n; log=build/fuzz/$$n.log; \
  rm -rf "$$c" "$$a"; mkdir -p "$$c" "$$a"; \
  if [ -d fuzz/corpus/$$n ]; then cp -R fuzz/corpus/$$n/. "$$c"/; fi; \
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:symbolize=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    build/fuzz/$$n $(1) -print_final_stats=1 -detect_leaks=1 -timeout=20 \
      -artifact_prefix="$$a"/ $(FUZZ_FLAGS) "$$c" > "$$log" 2>&1; st=$$?; \
  execs=$$(sed -n 's/^stat::number_of_executed_units: *//p' "$$log" | tail -n 1); \
  [ -n "$$execs" ] || execs=$$(grep -Eo '^#[0-9]+' "$$log" | tail -n 1 | tr -d '\#'); \
  crashes=$$(find "$$a" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
    -o -name 'oom-*' \) | wc -l); \
  if [ "$$st" != 0 ] && [ "$$crashes" = 0 ]; then crashes=1; fi; \
  echo "fuzz $$n: $${execs:-0} executions, $$crashes crashes"; \
  if [ "$$crashes" != 0 ]; then \
    echo "fuzz $$n: exit status $$st; log $$log, inputs in $$a/:"; \
    ls "$$a"; sed -n '/^==[0-9]*==ERROR\|runtime error\|^fuzz_/,/^SUMMARY/p' "$$log" | head -n 40; \
    rc=1; \
  fi; \
done; \
exit $$rc
endef

fuzz: $(FUZZ_BINS)
	@$(call fuzz_run,-max_total_time=$(FUZZ_SECONDS))

fuzz-smoke: $(FUZZ_BINS)
	@$(call fuzz_run,-runs=$(FUZZ_SMOKE_RUNS) -max_total_time=$(FUZZ_SMOKE_TIME))
