#!/usr/bin/env bash
# build/bin/write_file, the shell scripts' writer (gemm::OutputFile): standard input replaces a
# regular file whole (through a symbolic link, which stays; nobody's NAME.tmp touched), a FIFO or
# device is written through and never replaced, the path is checked before standard input is
# read, a failed write leaves the old file and no temporary; exit 0, 2 usage, 3 with one line
# "write_file: ..." naming the path. --check changes nothing and opens no FIFO.
#   test_write_file.sh PATH/TO/write_file
set -uo pipefail
shopt -s lastpipe   # `printf ... | expect ...`: expect runs here, and counts its failures here
write_file=${1:?usage: test_write_file.sh PATH/TO/write_file}
[[ $write_file == /* ]] || write_file=$PWD/$write_file
root=$(mktemp -d)
trap 'exec 3>&-; chmod -R u+w "$root"; rm -rf "$root"' EXIT
tmp=$root/files   # what the cases write; only theirs
mkdir "$tmp"
err=$root/err
failed=0
fail() { echo "FAIL: $*" >&2; failed=$((failed + 1)); }
# expect STATUS CMD...: CMD's exit status is STATUS (standard error in $err).
expect() {
  local want=$1 got=0
  shift
  "$@" 2> "$err" || got=$?
  [[ $got == "$want" ]] || fail "$* exited $got, not $want: $(cat "$err")"
}
# one_line PATH: what $err holds is one line, "write_file: ...", naming PATH.
one_line() {
  [[ $(wc -l < "$err") == 1 && $(cat "$err") == "write_file: "*"$1"* ]] || fail "stderr for $1: $(cat "$err")"
}
# own_device NAME: a device of the test's own (as root, a writer that renamed over the path would
# otherwise replace the system's /dev/null); another user cannot make one nor replace /dev's.
own_device() {
  local minor=3
  [[ $1 == full ]] && minor=7
  if mknod -m 666 "$tmp/dev_$1" c 1 "$minor" 2> /dev/null; then echo "$tmp/dev_$1"
  elif [[ $(id -u) != 0 ]]; then echo "/dev/$1"; fi
}

# Usage.
expect 2 "$write_file"
expect 2 "$write_file" a b
expect 2 "$write_file" --bogus
expect 2 "$write_file" --check
expect 0 "$write_file" --help < /dev/null > /dev/null

# A regular file: new, then replaced keeping its mode; "--" before a name that starts with "-".
printf 'one\n' | expect 0 "$write_file" "$tmp/res.csv"
[[ $(cat "$tmp/res.csv") == one ]] || fail "a new file: $(cat "$tmp/res.csv")"
chmod 640 "$tmp/res.csv"
printf 'not ours\n' > "$tmp/res.csv.tmp"
printf 'two\nthree\n' | expect 0 "$write_file" "$tmp/res.csv"
[[ $(cat "$tmp/res.csv") == $'two\nthree' ]] || fail "replaced: $(cat "$tmp/res.csv")"
[[ $(stat -c %a "$tmp/res.csv") == 640 ]] || fail "the mode was not kept: $(stat -c %a "$tmp/res.csv")"
[[ $(cat "$tmp/res.csv.tmp") == "not ours" ]] || fail "res.csv.tmp, not ours, was changed"
rm "$tmp/res.csv.tmp"
(cd "$tmp" && printf 'dash\n' | expect 0 "$write_file" -- -dash.csv)
[[ $(cat "$tmp/-dash.csv" 2> /dev/null) == dash ]] || fail "write_file -- -dash.csv"
rm -f "$tmp/-dash.csv"
[[ $(ls -A "$tmp") == res.csv ]] || fail "files left: $(ls -A "$tmp")"

# A symbolic link stays, its target gets the contents.
ln -s res.csv "$tmp/link.csv"
printf 'linked\n' | expect 0 "$write_file" "$tmp/link.csv"
[[ -L $tmp/link.csv && $(cat "$tmp/res.csv") == linked ]] || fail "the symbolic link was replaced or its target not written"

# A FIFO: written through, still a FIFO. The reader gives up after a while if nothing opens it.
mkfifo "$tmp/pipe"
timeout 10 cat "$tmp/pipe" > "$tmp/received" &
reader=$!
printf 'header\nrow\n' | expect 0 timeout 10 "$write_file" "$tmp/pipe"
wait "$reader"
[[ $(cat "$tmp/received") == $'header\nrow' ]] || fail "the FIFO's reader got: $(cat "$tmp/received")"
[[ -p $tmp/pipe ]] || fail "the FIFO was replaced"
# --check opens no FIFO: with no reader it would wait, and a reader would see its input end.
expect 0 timeout 5 "$write_file" --check "$tmp/pipe"

# Devices: written through, never replaced; a full one is exit 3 naming it.
null=$(own_device null)
full=$(own_device full)
if [[ -n $null ]]; then
  printf 'x\n' | expect 0 "$write_file" "$null"
  [[ -c $null ]] || fail "$null was replaced"
fi
if [[ -n $full ]]; then
  printf 'x\n' | expect 3 "$write_file" "$full"
  one_line "$full"
  [[ -c $full ]] || fail "$full was replaced"
fi
rm -f "$tmp/dev_null" "$tmp/dev_full"

# /dev/stdout: after what was printed, not over it, even when it is a file.
{ echo progress; printf 'a,b\n' | "$write_file" /dev/stdout; } > "$tmp/out.txt"
[[ $(cat "$tmp/out.txt") == $'progress\na,b' ]] || fail "/dev/stdout: $(cat "$tmp/out.txt")"
rm "$tmp/out.txt"

# Refused with exit 3 and one line, creating nothing: a missing folder, a folder.
ls_before=$(ls -A "$tmp")
for bad in "$tmp/no/x.csv" "$tmp"; do
  expect 3 "$write_file" --check "$bad"
  one_line "$bad"
  printf 'x\n' | expect 3 "$write_file" "$bad"
  one_line "$bad"
done
expect 0 "$write_file" --check "$tmp/later.csv"
[[ $(ls -A "$tmp") == "$ls_before" ]] || fail "refusing or --check created files: $(ls -A "$tmp")"
# ... before standard input is read: here it never ends (a FIFO whose writer stays open).
mkfifo "$tmp/endless"
exec 3<> "$tmp/endless"
expect 3 timeout 10 "$write_file" "$tmp/no/x.csv" < "$tmp/endless"
exec 3>&-
rm "$tmp/endless"

# A write that fails (a file size limit, as a full disk): exit 3, the old file, no temporary.
printf 'old contents\n' > "$tmp/res.csv"
ls_before=$(ls -A "$tmp")
(failed=0; ulimit -f 1; trap '' XFSZ; head -c 5000 /dev/zero | expect 3 "$write_file" "$tmp/res.csv"; exit "$failed") ||
  failed=$((failed + 1))
[[ $(cat "$tmp/res.csv") == "old contents" ]] || fail "a failed write changed the old file"
[[ $(ls -A "$tmp") == "$ls_before" ]] || fail "a failed write left: $(ls -A "$tmp")"

# A read-only folder (root writes anywhere: run as nobody there).
mkdir "$tmp/locked"
printf 'old\n' > "$tmp/locked/old.csv"
chmod 555 "$tmp/locked"
as_user=()
if [[ $(id -u) == 0 ]]; then
  if command -v setpriv > /dev/null; then
    chmod 755 "$root" "$tmp"
    as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
  else
    echo "note: root without setpriv: the read-only folder is not tried" >&2
    as_user=(skip)
  fi
fi
if [[ ${as_user[0]-} != skip ]]; then
  for name in new.csv old.csv; do
    expect 3 "${as_user[@]}" "$write_file" --check "$tmp/locked/$name"
    one_line "$tmp/locked/$name"
    printf 'x\n' | expect 3 "${as_user[@]}" "$write_file" "$tmp/locked/$name"
    one_line "$tmp/locked/$name"
  done
  [[ $(ls -A "$tmp/locked") == old.csv && $(cat "$tmp/locked/old.csv") == old ]] || fail "the read-only folder changed"
fi

if ((failed > 0)); then
  echo "$failed failure(s)" >&2
  exit 1
fi
echo "write_file: all cases passed"
