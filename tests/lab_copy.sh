# Sourced by the lab tests (test_lab_workflow.sh, test_lab_solutions.sh): a scratch copy of
# the checkout in WORK/src, to be built in WORK/build. The copy keeps the checkout's file
# times and its path is the same each time, so the build the other lab test left in
# WORK/build is reused: the project is compiled once for both, not once each.
#   lab_copy SOURCE_DIR WORK      (then the current folder is the copy; fail() is the caller's)
lab_copy() {
  local from=$1 into=$2/src
  rm -rf "$into" && mkdir -p "$into" || fail "cannot make $into"
  tar -C "$from" --exclude='./build*' --exclude='./results' --exclude='./.git' -cf - . | tar -C "$into" -xf - ||
    fail "cannot copy the checkout"
  cd "$into" || fail "cannot enter $into"
}
