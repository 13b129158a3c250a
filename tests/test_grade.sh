#!/usr/bin/env bash
# tools/grade.sh against stand-ins, so that nothing is compiled and every case takes a second
# or two: a student step that hangs, crashes, or exits 0 with no CSV or a garbled one FAILs
# with exit 1 and its own reason (never PASS, never "usage or build error"); a reference that
# fails is left out with its own error quoted; a size or thread count the harness would refuse
# is exit 2 before building, with the harness's own limits; a results/ that cannot be written
# is exit 3 before building.
#   test_grade.sh SOURCE_DIR BUILD_DIR   (BUILD_DIR: bin/write_file and bin/step01_baseline built)
set -uo pipefail
src=${1:?usage: test_grade.sh SOURCE_DIR BUILD_DIR} build=${2:?usage: test_grade.sh SOURCE_DIR BUILD_DIR}
build=$(cd "$build" && pwd) || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
check() {   # DESCRIPTION, then a command that must succeed
  local what=$1; shift
  if "$@"; then passed=$((passed + 1)); else echo "FAIL: $what" >&2; failed=$((failed + 1)); fi
}

# A scratch checkout: the tools, a step 11 copied from step 04, the harness header (limits).
co=$tmp/checkout fake=$tmp/build
mkdir -p "$co/steps/04_unroll_4x4" "$co/steps/11_fake" "$co/common/include/gemm" "$fake/bin" "$fake/tests" "$tmp/path"
cp -R "$src/tools" "$src/plots" "$co/"
cp "$src/common/include/gemm/harness.hpp" "$co/common/include/gemm/"
echo "# from: 04_unroll_4x4 (tools/grade.sh compares this step with it)" > "$co/steps/11_fake/CMakeLists.txt"
ln -s "$build/bin/write_file" "$fake/bin/write_file"
# cmake: builds nothing, but leaves a mark, so a case can tell that grading got that far.
printf '#!/bin/sh\ntouch "%s/built"\n' "$tmp" > "$tmp/path/cmake"
printf '#!/bin/sh\necho "4 04_unroll_4x4 serial scalar"\necho "11 11_fake serial scalar"\n' > "$fake/bin/cpuinfo"
cat > "$fake/tests/gemm_tests" <<'EOF'
#!/bin/bash
# Catch2's ways to end: all passed; exit N for N failed checks (255 at most); a fatal signal,
# reported then raised again; or a hang.
case ${FAKE_TESTS-} in
  hang) exec sleep 60 ;;
  wrong) for i in 1 2 3; do echo "test_steps.cpp:87: FAILED:"; done; exit 255 ;;
  segv) echo "test_steps.cpp:87: FAILED:"; echo "due to a fatal error condition:"; echo "  SIGSEGV - Segmentation violation signal"
        kill -SEGV $$ ;;
esac
echo "All tests passed (2 assertions in 1 test case)"
EOF
# The steps and the reference: a header line on stdout as the harness prints, then a CSV row
# per size, or what $FAKE_STEP (step 11) or $FAKE_REF (ref_openblas) asks for.
cat > "$fake/bin/step11_fake" <<'EOF'
#!/bin/bash
name=$(basename "$0") sizes="" csv="" verify=1
while [ $# -gt 0 ]; do
  case $1 in --sizes) sizes=$2; shift ;; --csv) csv=$2; shift ;; --no-verify) verify=0 ;; esac
  shift
done
mode=ok
[ "$name" = step11_fake ] && mode=${FAKE_STEP:-ok}
[ "$name" = ref_openblas ] && mode=${FAKE_REF:-ok}
header="$name: kernel scalar, 1 thread, Fake CPU [Fake]"
# A failing program's error is unbuffered, its header line comes when stdout is flushed, at exit.
[ "$mode" = fail ] && { echo "$name: cannot load libopenblas.so.0" >&2; echo "$header"; exit 3; }
echo "$header"
case $mode in
  hang) exec sleep 60 ;;
  segv) kill -SEGV $$ ;;
  segvtimed) [ "$verify" = 0 ] && kill -SEGV $$ ;;
  nocsv) exit 0 ;;
  garbage) printf 'Segmentation fault\n\033[31m%s\n' "$sizes" > "$csv"; exit 0 ;;
esac
err=1e-07; [ "$verify" = 1 ] || err=nan
cpu="Fake CPU"; [ "$mode" = escape ] && cpu=$'\e[2J\e[31mFake CPU'   # a terminal escape in a CSV
{ echo "step,m,n,k,threads,gflops_best,gflops_median,seconds_best,max_rel_err,verified,kernel,reps,cpu,uarch,params"
  for s in ${sizes//,/ }; do echo "${name#step},$s,$s,$s,1,2.5,2.4,0.001,$err,$verify,scalar,3,$cpu,Fake,"; done
} > "$csv"
EOF
cp "$fake/bin/step11_fake" "$fake/bin/step04_unroll_4x4"
cp "$fake/bin/step11_fake" "$fake/bin/ref_openblas"
chmod +x "$tmp/path/cmake" "$fake/tests/gemm_tests" "$fake/bin/"{cpuinfo,step11_fake,step04_unroll_4x4,ref_openblas}

# grade ARGS...: tools/grade.sh 11 in the scratch checkout; sets rc, out (its output),
# verdict (the last line), seconds, and whether it got as far as building.
grade() {
  rm -f "$tmp/built"
  local start=$SECONDS
  rc=0
  local sizes=(--sizes 37,64)
  [[ " $* " == *" --sizes "* ]] && sizes=()   # the case's own (grade.sh refuses an option given twice)
  out=$(PATH="$tmp/path:$PATH" "$co/tools/grade.sh" 11 --build "$fake" "${sizes[@]}" "$@" 2> "$tmp/err" < /dev/null) || rc=$?
  seconds=$((SECONDS - start))
  verdict=$(tail -n 1 <<< "$out")
  built=0; [[ -e $tmp/built ]] && built=1
}
says() { grep -qF -- "$1" <<< "$2" || { echo "  wanted '$1' in: $2" >&2; return 1; }; }

grade
check "a good step: PASS with a ratio to step 04 (exit $rc: $verdict)" \
  eval '[[ $rc == 0 && $verdict == "PASS step11_fake:"*"x step04_unroll_4x4"* ]]'
check "its checked sweep CSV in results/" grep -q '^11_fake,64,64,64,1,2.5,' "$co/results/grade_step11_fake.csv"
check "its ratios in results/" grep -q '^37,2.500,2.500,' "$co/results/grade_step11_fake.ratios.csv"

FAKE_STEP=hang grade --timeout 2
check "a hanging step: exit 1 with its own reason, in seconds (exit $rc after $seconds s: $verdict)" \
  eval '[[ $rc == 1 && $seconds -lt 20 ]] && says "FAIL step11_fake: the sweep did not finish in 2 s (--timeout 2)" "$verdict"'
FAKE_TESTS=hang grade --timeout 2
check "a step that hangs in the test suite: exit 1 with its own reason (exit $rc: $verdict)" \
  eval '[[ $rc == 1 ]] && says "FAIL step11_fake: the test suite did not finish in 2 s" "$verdict"'
FAKE_TESTS=wrong grade
check "a step wrong on the test shapes, 255 failed checks: exit 1 (exit $rc: $verdict)" \
  eval '[[ $rc == 1 ]] && says "FAIL step11_fake: wrong on the test shapes" "$verdict"'
FAKE_TESTS=segv grade
check "a step that crashes the test suite: exit 1 (exit $rc: $verdict)" \
  eval '[[ $rc == 1 ]] && says "FAIL step11_fake: the test suite crashed with SIGSEGV" "$verdict"'
FAKE_STEP=segv grade
check "a crashing step: exit 1, crashed with SIGSEGV, no shell noise (exit $rc: $verdict)" \
  eval '[[ $rc == 1 && ! -s $tmp/err ]] && says "FAIL step11_fake: the sweep crashed with SIGSEGV" "$verdict"'
FAKE_STEP=segvtimed grade
check "a step that crashes only in its timed runs (tools/interleave.py): exit 1, crashed with SIGSEGV (exit $rc: $verdict)" \
  eval '[[ $rc == 1 && $verdict == "FAIL step11_fake: the timed run at n="*" crashed with SIGSEGV"* ]]'
FAKE_STEP=nocsv grade
check "exit 0 without a CSV: exit 1 (exit $rc: $verdict)" \
  eval '[[ $rc == 1 ]] && says "FAIL step11_fake: the sweep exited 0 but wrote no CSV" "$verdict"'
FAKE_STEP=garbage grade
check "exit 0 with a garbled CSV: exit 1, the problem named (exit $rc: $verdict)" \
  eval '[[ $rc == 1 ]] && says "exited 0 but its CSV is not the contract'"'"'s: sweep.csv:1: no step column" "$verdict"'
check "a garbled CSV is not copied to results/" grep -q '^11_fake,64,' "$co/results/grade_step11_fake.csv"

FAKE_STEP=escape grade
check "a CPU name with terminal escapes: shown with '?', not sent to the terminal (exit $rc)" \
  eval '[[ $rc == 0 && $out != *$'"'"'\e'"'"'* && $out == *"CPU: ?[2J?[31mFake CPU"* ]]'

FAKE_REF=fail grade
check "a failing reference: still PASS, no ratio to it (exit $rc: $verdict)" \
  eval '[[ $rc == 0 && $verdict == "PASS step11_fake:"* && $verdict != *ref_openblas* ]]'
check "the note quotes the reference's error, not its header line" \
  eval '[[ $out =~ "note: ref_openblas at n="(37|64)" exited with 3 (ref_openblas: cannot load libopenblas.so.0): no ratio to it" ]]'

# Arguments: refused with one line before building, at the limits the executables enforce.
cap=$("$build/bin/step01_baseline" --help | sed -n 's/.*; at most \([0-9][0-9]*\), 4 x the CPUs.*/\1/p')
check "step01_baseline --help states its thread limit" test -n "$cap"
max=$(sed -n 's/^constexpr int kMaxSize = \([0-9][0-9]*\);.*/\1/p' "$src/common/include/gemm/harness.hpp")
brc=0; "$build/bin/step01_baseline" --sizes $((max + 1)) --no-verify > /dev/null 2>&1 || brc=$?
check "the harness refuses --sizes $((max + 1)) (exit $brc)" test "$brc" = 2
for bad in "--sizes $((max + 1))" "--sizes 37,0" "--sizes 37,,64" "--threads $((cap + 1))" "--timeout 0" "--timeout 1.5x"; do
  # shellcheck disable=SC2086
  grade $bad
  check "grade.sh $bad: exit 2 and one line, before building (exit $rc, built: $built)" \
    eval '[[ $rc == 2 && $built == 0 && $(wc -l < "$tmp/err") == 1 ]]'
done
for good in "--sizes $max" "--threads $cap"; do   # at the limit: graded (the stand-ins take any size)
  # shellcheck disable=SC2086
  grade $good
  check "grade.sh $good is accepted, as the executables accept it (exit $rc: $verdict)" test "$rc" = 0
done

# A word that is no option is named as such (it was "extra: needs a value").
grade extra
check "grade.sh 11 extra: exit 2, one line naming 'extra' as unknown (exit $rc: $(head -c 200 "$tmp/err"))" \
  eval '[[ $rc == 2 && $built == 0 && $(wc -l < "$tmp/err") == 1 ]] && says "unknown argument '"'"'extra'"'"'" "$(cat "$tmp/err")"'
# A step folder past the one limit on a step's name (plots/samples.py, STEP_NAME_MAX): the
# scheduler could not take its label; refused before building, not graded PASS unmeasured.
limit=$(sed -n 's/^STEP_NAME_MAX = \([0-9][0-9]*\)$/\1/p' "$src/plots/samples.py")
long="12_$(printf 'l%.0s' $(seq $((limit - 2))))"
mkdir -p "$co/steps/$long"
echo "# from: 04_unroll_4x4 (tools/grade.sh compares this step with it)" > "$co/steps/$long/CMakeLists.txt"
rm -f "$tmp/built"; rc=0
PATH="$tmp/path:$PATH" "$co/tools/grade.sh" 12 --build "$fake" --sizes 37 > "$tmp/out" 2> "$tmp/err" < /dev/null || rc=$?
check "a step named with $((limit + 1)) characters: exit 2, one line, before building (exit $rc: $(tail -c 300 "$tmp/out") $(head -c 300 "$tmp/err"))" \
  eval '[[ $rc == 2 && ! -e $tmp/built && $(wc -l < "$tmp/err") == 1 ]] && says "over the limit of $limit" "$(cat "$tmp/err")"'
rm -rf "${co:?}/steps/$long"
# The timing refused (a scheduler that says so on one line, exit 2) or wrote no samples of the
# step: not graded, exit 2, never PASS.
mkdir -p "$tmp/pypath"
for how in refuses silent; do
  # the real scheduler's refusal of a label past the limit, as it was said
  said="echo \"interleave.py: 'step11_fake...': not LABEL=COMMAND\" >&2; exit 2"
  [[ $how == silent ]] && said="exit 0"
  printf '#!/bin/sh\n%s\n' "$said" > "$tmp/pypath/python3"
  chmod +x "$tmp/pypath/python3"
  rc=0
  out=$(PATH="$tmp/pypath:$tmp/path:$PATH" "$co/tools/grade.sh" 11 --build "$fake" --sizes 37 2> "$tmp/err" < /dev/null) || rc=$?
  verdict=$(tail -n 1 <<< "$out")
  check "a scheduler that $how: exit 2, not graded, no stray errors (exit $rc: $verdict $(head -c 200 "$tmp/err"))" \
    eval '[[ $rc == 2 && $verdict == "FAIL step11_fake: not graded"* && ! -s $tmp/err ]]'
done

# results/ that cannot be written: exit 3 with one line, before building (as nobody when root,
# who may write in a read-only folder).
chmod 555 "$co/results"
as=()
if [[ $(id -u) == 0 ]] && command -v setpriv > /dev/null; then
  chmod 755 "$tmp"
  as=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
fi
if [[ $(id -u) != 0 || ${#as[@]} != 0 ]]; then
  rm -f "$tmp/built"
  rc=0; "${as[@]}" env PATH="$tmp/path:$PATH" "$co/tools/grade.sh" 11 --build "$fake" > /dev/null 2> "$tmp/err" || rc=$?
  check "results/ read-only: exit 3 and one line before building (exit $rc: $(head -c 300 "$tmp/err"))" \
    eval '[[ $rc == 3 && ! -e $tmp/built && $(wc -l < "$tmp/err") == 1 ]]'
fi
chmod 755 "$co/results"

echo "grade.sh: $passed passed, $failed failed"
[[ $failed == 0 ]]
