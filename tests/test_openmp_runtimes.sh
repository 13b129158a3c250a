#!/usr/bin/env bash
# No executable loads two OpenMP runtimes (LLVM's libomp and GCC's libgomp): each would
# start its own thread pool, and the threads would fight over the cores. A clang build of
# ref_blis against Debian's blis-openmp did.
#   test_openmp_runtimes.sh BIN_DIR
set -uo pipefail
bin=${1:?usage: test_openmp_runtimes.sh BIN_DIR}
failed=0 checked=0
for exe in "$bin"/*; do
  [[ -x $exe && -f $exe ]] || continue
  libs=$(LD_TRACE_LOADED_OBJECTS=1 "$exe" 2>/dev/null) || continue
  checked=$((checked + 1))
  if grep -q 'libomp\.so' <<< "$libs" && grep -q 'libgomp\.so' <<< "$libs"; then
    echo "FAIL: $(basename "$exe") loads both libomp and libgomp:" >&2
    grep -E 'lib(g?omp)\.so' <<< "$libs" >&2
    failed=$((failed + 1))
  fi
done
echo "openmp runtimes: $((checked - failed)) passed, $failed failed"
[[ $failed == 0 && $checked -gt 0 ]]
