#!/usr/bin/env bash
# make test: busted specs under Lua 5.4 with the C core tests (plain, then
# with AddressSanitizer + UBSan) beside them, the API specs under Lua 5.1,
# 5.2, 5.3 and LuaJIT (each with its build/<lua>/perflib/core.so; LuaJIT with
# lua5.1's, as it loads it once installed), the fuzz smoke (after the C
# tests) and the lint beside them, then the 5.4 specs with AddressSanitizer +
# UBSan alone.
# Prints "<interpreter>: N passed, N failed" for each Lua, then the total as
# the last line, "N passed, N failed, N skipped"; exits non-zero on any failure.
set -u
cd "$(dirname "$0")/../.."
counts=$(mktemp)
# Application segments (perflib.provider, libperflib-provider) go to a directory
# of this run's own: the specs that compare the catalog of two processes do not
# see the segments of another test run on the same machine, and /run/perflib
# is left alone.
PERFLIB_APPSEG_DIR=$(mktemp -d)
export PERFLIB_APPSEG_DIR
trap 'rm -f "$counts" "${lint_out:-}" "${lint_counts:-}" "${ctest_out:-}" "${fuzz_out:-}"; rm -rf "$PERFLIB_APPSEG_DIR"' EXIT
status=0

run_ctests() {          # $1: directory of test binaries
  for t in "$1"/test_*; do
    [ -x "$t" ] || continue
    out=$("$t" 2>&1); rc=$?
    printf '%s\n' "$out" | tail -n 20
    line=$(printf '%s\n' "$out" | grep -Eo '[0-9]+ passed, [0-9]+ failed' | tail -n 1)
    if [ -z "$line" ]; then
      echo "$t: crashed or printed no summary (exit $rc)"; echo "0 1 0" >> "$counts"; status=1
      continue
    fi
    p=${line%% passed*}; f=${line#*, }; f=${f%% failed*}
    echo "$p $f 0" >> "$counts"
    [ "$rc" = 0 ] && [ "$f" = 0 ] || status=1
  done
}

# The C tests, plain and then under ASan + UBSan, run on the core the 5.4
# specs leave idle; their output is printed after those specs.  Their counts
# go to the total as they finish (a failure there fails the run through it).
# They publish application segments into a directory of their own, apart
# from the specs' (which compare catalogs).
ctest_out=$(mktemp)
(PERFLIB_APPSEG_DIR=$(mktemp -d); export PERFLIB_APPSEG_DIR
 echo "== C core tests ($SECONDS s)"; run_ctests build/ctest
 echo "== C core tests under ASan + UBSan ($SECONDS s)"; run_ctests build/san/ctest
 rm -rf "$PERFLIB_APPSEG_DIR") > "$ctest_out" 2>&1 &
ctest_pid=$!

# The fuzz smoke builds and runs its targets (ASan, one core) on that core
# once the C tests are done, beside the rest of the 5.4 specs and the other
# Luas' specs: its output is read after them.
fuzz_out=$(mktemp)
fuzz_pid=
if command -v "${FUZZ_CC:-clang}" >/dev/null; then
  (while kill -0 "$ctest_pid" 2>/dev/null; do sleep 1; done
   make -s --no-print-directory fuzz-smoke > "$fuzz_out" 2>&1; echo "rc=$?" >> "$fuzz_out") &
  fuzz_pid=$!
fi

per_lua=()              # "<interpreter>: N passed, N failed", printed before the total
# $1: interpreter; the rest: busted's arguments.  Its counts go to the total too.
run_busted() {
  local lua=$1 c p f s
  shift
  c=$(mktemp)
  PERFLIB_COUNTS=$c "$@" || status=1
  if read -r p f s < "$c"; then
    cat "$c" >> "$counts"
  else
    echo "$lua: busted printed no summary"; p=0; f=1; echo "0 1 0" >> "$counts"; status=1
  fi
  rm -f "$c"
  per_lua+=("$lua: $p passed, $f failed")
}

echo "== busted specs (Lua 5.4) ($SECONDS s)"
run_busted lua5.4 busted
wait "$ctest_pid"
cat "$ctest_out"
rm -f "$ctest_out"

# Lint (luacheck, cppcheck, ldoc, check-doc, luac): static, so it runs in the
# background from the other Luas' specs on, and its output is printed in its place.
lint_counts=$(mktemp)
run_lint() {
  local st=0
  if command -v luacheck >/dev/null; then
    luacheck -q . || st=1
  fi
  if command -v cppcheck >/dev/null; then
    cppcheck --enable=warning,portability --error-exitcode=1 -q -Isrc/core -D_GNU_SOURCE \
      --suppress=missingIncludeSystem src || st=1
  fi
  if command -v ldoc >/dev/null; then
    ldoc --fatalwarnings . >/dev/null || { echo "ldoc: warnings in the API comments"; st=1; }
    # every public function documented (doc/check-doc.lua prints the missing ones);
    # counted as a test, so a gap shows in the failed count too
    if LUA_PATH_5_4='./lua/?.lua;./lua/?/init.lua;;' LUA_CPATH_5_4='./build/?.so;;' \
        lua5.4 doc/check-doc.lua; then
      echo "1 0 0" >> "$lint_counts"
    else
      echo "check-doc: public functions without a doc comment"; echo "0 1 0" >> "$lint_counts"; st=1
    fi
  fi
  for f in lua/perflib/*.lua spec/*.lua spec/support/*.lua examples/*.lua bench/*.lua; do
    [ -f "$f" ] || continue
    luac5.4 -p "$f" || st=1
  done
  # the facade parses on every Lua (no 5.4-only syntax)
  for f in lua/perflib/*.lua lua/perflib/rules/*.lua; do
    if command -v luac5.1 >/dev/null; then luac5.1 -p "$f" || st=1; fi
    if command -v luajit >/dev/null; then luajit -b "$f" /dev/null || st=1; fi
  done
  return $st
}

lint_out=$(mktemp)
(run_lint > "$lint_out" 2>&1; echo "rc=$?" >> "$lint_out") &
lint_pid=$!

# .busted's compat task: the specs every Lua runs; tests tagged with a version
# this one lacks are left out (#lua52: an exit status from io.popen's close,
# #lua53: integers, #lua54)
for lua in lua5.1 lua5.2 lua5.3 luajit; do
  echo "== busted specs ($lua) ($SECONDS s)"
  case $lua in
    lua5.3) tags=lua54 ;;
    lua5.2) tags=lua53,lua54 ;;
    *) tags=lua52,lua53,lua54 ;;
  esac
  mod=$lua; [ "$lua" = luajit ] && mod=lua5.1     # LuaJIT loads the 5.1 module, as installed
  if ! command -v "$lua" >/dev/null || [ ! -f "build/$mod/perflib/core.so" ]; then
    echo "$lua: not installed or build/$mod/perflib/core.so not built (make test installs and builds both)"
    echo "0 1 0" >> "$counts"; status=1; per_lua+=("$lua: 0 passed, 1 failed")
    continue
  fi
  run_busted "$lua" env PERFLIB_LUA="$lua" PERFLIB_CORE="build/$mod/perflib/core.so" \
    busted --run=compat --lua="$lua" --cpath="./build/$mod/?.so" --exclude-tags="$tags"
done


# the ASan pass has timing-sensitive specs (a terminal in tmux): the fuzz smoke and the lint are done first
if [ -n "$fuzz_pid" ]; then wait "$fuzz_pid"; fi
wait "$lint_pid"
echo "== busted specs under ASan + UBSan ($SECONDS s)"
asan=$(gcc -print-file-name=libasan.so) ubsan=$(gcc -print-file-name=libubsan.so)
PERFLIB_CORE=build/san/perflib/core.so PERFLIB_COUNTS=$counts LD_PRELOAD="$asan:$ubsan" \
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  busted --cpath=./build/san/?.so || status=1

echo "== fuzz smoke (libFuzzer, ASan+UBSan), started after the C tests ($SECONDS s)"
# one test per fuzz target: passed when its line says 0 crashes
if [ -n "$fuzz_pid" ]; then
  wait "$fuzz_pid"
  rc=$(sed -n 's/^rc=//p' "$fuzz_out" | tail -n 1)
  out=$(grep -v '^rc=' "$fuzz_out")
  printf '%s\n' "$out"
  lines=$(printf '%s\n' "$out" | grep -E '^fuzz [^ ]+: [0-9]+ executions, [0-9]+ crashes$')
  if [ -z "$lines" ]; then
    echo "fuzz smoke: no target ran (exit $rc)"; echo "0 1 0" >> "$counts"; status=1
  else
    bad=0
    while read -r _ _ _ _ n _; do
      if [ "$n" = 0 ]; then echo "1 0 0" >> "$counts"; else echo "0 1 0" >> "$counts"; bad=1; fi
    done <<< "$lines"
    # a failure after the summaries (a target that did not build) is one more
    if [ "$rc" != 0 ] && [ "$bad" = 0 ]; then echo "0 1 0" >> "$counts"; fi
    [ "$rc" = 0 ] && [ "$bad" = 0 ] || status=1
  fi
else
  echo "fuzz smoke: ${FUZZ_CC:-clang} not found, skipped"; echo "0 0 1" >> "$counts"
fi
rm -f "$fuzz_out"

echo "== lint, started with the other Luas ($SECONDS s)"
wait "$lint_pid"
rc=$(sed -n 's/^rc=//p' "$lint_out" | tail -n 1)
grep -v '^rc=' "$lint_out"
cat "$lint_counts" >> "$counts"
[ "$rc" = 0 ] || status=1
rm -f "$lint_out" "$lint_counts"

echo "== done ($SECONDS s)"
printf '%s\n' "${per_lua[@]}"
read -r P F S < <(awk '{p+=$1; f+=$2; s+=$3} END {print p+0, f+0, s+0}' "$counts")
[ "$F" = 0 ] || status=1
echo "$P passed, $F failed, $S skipped"
exit $status
