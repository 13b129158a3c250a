#!/usr/bin/env python3
"""The x86 kernels' jumps stay off 32-byte boundaries (cmake/GemmSettings.cmake: the assembler's
padding for Skylake-family cores, whose decoded-uop cache drops a 32-byte block of code with
a jump that ends on or crosses its end). Disassembles the kernels of steps 08 and 10
(objdump) and names every jump, a compare or test fused with its jump counted as one, that
crosses a 32-byte boundary or ends on one.

    test_jump_boundaries.py BIN_DIR
Exit 0 all clear, 1 a jump on a boundary (listed), 77 objdump missing or no such function."""
import os
import re
import shutil
import subprocess
import sys

# Macro-fusion (Sandy Bridge on), which the assembler's padding follows: test and and fuse with
# every conditional jump; cmp, add and sub not with the overflow, sign and parity jumps;
# inc and dec not with those nor the carry ones. Never a compare of memory with an immediate.
# Calls and returns are left out, as the padding leaves them: none is inside a loop here.
NOT_FUSING = {
    "test": (), "and": (),
    "cmp": ("jo", "jno", "js", "jns", "jp", "jnp"),
    "add": ("jo", "jno", "js", "jns", "jp", "jnp"),
    "sub": ("jo", "jno", "js", "jns", "jp", "jnp"),
    "inc": ("jo", "jno", "js", "jns", "jp", "jnp", "jb", "jae", "jbe", "ja"),
    "dec": ("jo", "jno", "js", "jns", "jp", "jnp", "jb", "jae", "jbe", "ja"),
}


def fuses(prev, jump):
    """Whether the conditional jump `jump` fuses with the instruction before it."""
    base = re.sub(r"[bwlq]$", "", prev[3]) if prev[3] not in NOT_FUSING else prev[3]
    operands = prev[4]
    return (base in NOT_FUSING and jump not in NOT_FUSING[base]
            and not ("$" in operands and "(" in operands))


LINE = re.compile(r"^\s*([0-9a-f]+):\s+((?:[0-9a-f]{2} )+)\s*(\S+)\s*([^<#]*)")
FUNCTION = re.compile(r"^[0-9a-f]+ <(.*)>:$")
# The kernels: step 10's tile loops and step 08's micro-kernels (the files compiled with the ISA flags).
KERNEL = re.compile(r"^(void )?step10::\(anonymous namespace\)::tile|^step08::microkernel_")


def tile_instructions(exe):
    """[(function, address, length, mnemonic, operands)] of the kernel functions."""
    text = subprocess.run(["objdump", "-d", "-C", "-w", exe],
                          capture_output=True, text=True, check=True).stdout
    out, function = [], None
    for line in text.splitlines():
        m = FUNCTION.match(line)
        if m:
            function = m.group(1) if KERNEL.search(m.group(1)) else None
            continue
        m = LINE.match(line)
        if function and m:
            out.append((function, int(m.group(1), 16), len(m.group(2).split()), m.group(3), m.group(4).strip()))
    return out


def on_boundary(start, end):
    return start // 32 != (end - 1) // 32 or end % 32 == 0


def main():
    if len(sys.argv) != 2:
        print("usage: test_jump_boundaries.py BIN_DIR", file=sys.stderr)
        return 2
    if shutil.which("objdump") is None:
        print("objdump not found: not checked")
        return 77
    bad, jumps = [], 0
    for name in ("step10_tuned", "step08_avx512_14x32"):
        exe = os.path.join(sys.argv[1], name)
        if not os.path.exists(exe):
            print(name + ": not built: not checked")
            return 77
        code = tile_instructions(exe)
        if not code:
            print(name + ": no tile function found: not checked")
            return 77
        for i, (function, address, length, mnemonic, _) in enumerate(code):
            if not mnemonic.startswith("j"):
                continue
            jumps += 1
            start = address
            prev = code[i - 1] if i > 0 else None
            if (mnemonic.startswith("j") and mnemonic != "jmp" and prev and prev[0] == function
                    and prev[1] + prev[2] == address and fuses(prev, mnemonic)):
                start = prev[1]
            if on_boundary(start, address + length):
                bad.append("{}: {} at {:x}-{:x} in {}".format(name, mnemonic, start, address + length, function[:90]))
    for line in bad:
        print("on a 32-byte boundary: " + line)
    print("{} jumps checked, {} on a boundary".format(jumps, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
