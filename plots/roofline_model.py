"""The roofline model of each step's loop nest: how many bytes each multiply-add makes move
between each level of the memory hierarchy and the level above it, from the step's register
tile, its block sizes and the cache sizes (as plots/machine.py reads them from cpuinfo --json);
hence its arithmetic intensity (flops per byte) against each level, and which level bounds it.
docs/roofline.md derives every formula.

Standard library only. A 'level' here is where the bytes come from:
  L1    the bytes the core's load and store instructions move (registers <-> L1)
  L2    the bytes brought into L1 from L2 (the L1 misses, in whole 64-byte lines)
  L3    the bytes brought into L2 from L3
  DRAM  the bytes brought into L3 from memory
"""

FLOAT = 4        # bytes
LINE = 64        # bytes per cache line
LEVELS = ("L1", "L2", "L3", "DRAM")

# Each step's loop nest, as the model sees it: whether C stays in registers over the k loop,
# and what blocking it does. The register tile (mr x nr elements of C per inner loop) is the
# step's own, from the registry: bin/cpuinfo --json reports each variant's (plots/machine.py).
#   c_in_registers: steps 01 and 02 keep the sum in a register but store it to C after every
#     multiply-add (C might alias A or B, so the compiler must write it before the next load);
#     from step 03 on C stays in registers over the k loop.
#   blocked: kc x mc cache blocks (06 on); packed: A and B copied into slivers (07 on).
STEPS = {
    1: {"c_in_registers": False, "blocked": False, "packed": False},
    2: {"c_in_registers": False, "blocked": False, "packed": False},
    3: {"c_in_registers": True, "blocked": False, "packed": False},
    4: {"c_in_registers": True, "blocked": False, "packed": False},
    5: {"c_in_registers": True, "blocked": False, "packed": False},
    6: {"c_in_registers": True, "blocked": True, "packed": False},
    7: {"c_in_registers": True, "blocked": True, "packed": True},
    8: {"c_in_registers": True, "blocked": True, "packed": True},
    9: {"c_in_registers": True, "blocked": True, "packed": True},
    10: {"c_in_registers": True, "blocked": True, "packed": True},
}


def fits(nbytes, cache):
    """The rule every step uses: a block stays in a cache when it takes at most half of it
    (the other half is for the data streaming past it)."""
    return cache > 0 and nbytes <= cache / 2


def loop_nest(number, tile):
    """The STEPS entry for a step, with its register tile (mr, nr) filled in; None for a step
    the model does not know (lab steps 11 and up) or without a tile (a variant cpuinfo gives
    none for)."""
    if number not in STEPS or not tile:
        return None
    nest = dict(STEPS[number])
    nest["mr"], nest["nr"] = tile
    return nest


def unblocked(n, nest, caches):
    """Bytes per multiply-add at each level for loops j (nr columns) > i (mr rows) > p, the
    mr x nr tile of C in registers (or not), A and B read in place (steps 01-05, and 10
    when it skips packing)."""
    mr, nr = nest["mr"], nest["nr"]
    l1, l2, l3 = caches["L1"], caches["L2"], caches["L3"]
    # Registers <- L1: per step of p, mr elements of A and nr of B for mr*nr multiply-adds.
    # When C is stored after every multiply-add (steps 01 and 02), each multiply-add is a load
    # of A, a load of B and a store of C, 12 bytes: the store might have changed A, so step
    # 02 loads A(i, p) again after each of its four stores (objdump of its library: per step
    # of p, 4 x (movss A, mulss B, addss, movss to C)); C itself is never loaded.
    reg = FLOAT * (mr + nr) / (mr * nr) if nest["c_in_registers"] else 3 * FLOAT
    # L1 <- L2: the B sliver (n rows of nr floats, each row on its own line) is walked again
    # for every mr-row tile. It stays in L1 when its n lines fit; otherwise each step of p
    # brings a whole line for mr*nr multiply-adds. A streams: mr floats per step, whole lines.
    # (When it fits, the next slivers find the same lines there too: B comes once, 4/n.)
    b_sliver = n * LINE
    b_l2 = FLOAT / n if fits(b_sliver, l1) else LINE / (mr * nr)
    a_stream = FLOAT / nr
    into_l1 = b_l2 + a_stream
    # L2 <- L3: all of A is read again for every B sliver; from L3 unless A fits in L2. The
    # B sliver's lines come once when they fit in L2, as above.
    a_bytes = FLOAT * n * n
    a_l3 = FLOAT / n if fits(a_bytes, l2) else a_stream
    into_l2 = a_l3 + (FLOAT / n if fits(b_sliver, l2) else LINE / (mr * nr))
    # L3 <- DRAM: A, B and C once when they fit in L3, else A again for every B sliver.
    into_l3 = 3 * FLOAT / n if fits(3 * a_bytes, l3) else a_stream
    return {"L1": reg, "L2": into_l1, "L3": into_l2, "DRAM": into_l3}


def blocked(n, nest, caches, blocks):
    """Bytes per multiply-add at each level for the blocked loop nest (steps 06-10):
    for pc (kc deep) > ic (mc rows of A, kept in L2) > jr (nr columns, a kc x nr B sliver,
    kept in L1 when it fits) > ir (mr rows): the micro-kernel. nc columns per B panel
    (n for steps 06 and 07, which have no nc)."""
    mr, nr = nest["mr"], nest["nr"]
    # k is cut into ceil(n / kc) slices: kc here is their mean depth, which is what counts
    # for the passes over C (steps 08-10 cut k into equal slices, 06 and 07 leave a thin last
    # one).
    kc = n / -(-n // blocks["kc"])
    mc, nc = min(blocks["mc"], n), min(blocks.get("nc", n), n)
    l1, l2, l3 = caches["L1"], caches["L2"], caches["L3"]
    c_tile = 2 * FLOAT / kc              # the C tile loaded and stored once per kc steps of p
    reg = FLOAT * (mr + nr) / (mr * nr) + c_tile
    # L1 <- L2. The B sliver (kc x nr) is used by all mc/mr A slivers of the block: from L2
    # once per block if it fits in L1, else every time. Unpacked, each of its kc rows is a
    # line of its own; packed, it is kc*nr floats end to end. The A sliver streams from L2.
    b_sliver = kc * (nr * FLOAT if nest["packed"] else LINE)
    b_use = (nr * FLOAT if nest["packed"] else LINE) / (mr * nr)
    b_l2 = b_sliver / (kc * mc * nr) if fits(b_sliver, l1) else b_use
    into_l1 = b_l2 + FLOAT / nr + c_tile
    # L2 <- L3. The A block (mc x kc) is read once per B panel: 4/nc. The B panel (kc x nc)
    # is read again for every A block unless it fits in L2 beside it: 4/mc. C (m x n) is
    # read and written once per kc slice of k: 8/kc, from L3 unless it fits in L2.
    a_block = FLOAT * mc * kc
    b_panel = FLOAT * kc * nc
    b_l3 = FLOAT / n if fits(a_block + b_panel, l2) else FLOAT / mc
    c_all = FLOAT * n * n
    into_l2 = FLOAT / nc + b_l3 + (0 if fits(c_all, l2) else 2 * FLOAT / kc)
    # L3 <- DRAM: once when A, B and C fit in L3, else the same terms against the L3.
    if fits(3 * c_all, l3):
        into_l3 = 3 * FLOAT / n
    else:
        into_l3 = FLOAT / nc + (FLOAT / n if fits(b_panel, l3) else FLOAT / mc) + 2 * FLOAT / kc
    return {"L1": reg, "L2": into_l1, "L3": into_l2, "DRAM": into_l3}


def skips_packing(number, n, caches, blocks):
    """Step 10 reads small matrices in place (A within half of L2) unless a block size was
    set; the model then follows the unblocked nest. The lessons 08 and 09 always pack."""
    return number == 10 and not blocks.get("set") and fits(FLOAT * n * n, caches["L2"])


def bytes_per_fma(number, tile, n, caches, blocks=None):
    """{level: bytes per multiply-add} of step `number` with register tile (mr, nr), or None
    when the model does not know the step."""
    nest = loop_nest(number, tile)
    if nest is None:
        return None
    if nest["blocked"] and blocks and not skips_packing(number, n, caches, blocks):
        return blocked(n, nest, caches, blocks)
    if nest["blocked"] and not blocks and number in (6, 7):
        return None   # blocked steps need their block sizes
    return unblocked(n, nest, caches)


def intensity(traffic):
    """{level: flops per byte}: two flops per multiply-add."""
    return {level: 2.0 / b for level, b in traffic.items() if b > 0}


def bound(intensities, bandwidth):
    """The level whose roof is lowest for these intensities, and that roof (GFLOPS):
    min over levels of bandwidth (GB/s) x intensity (flops/byte). None when no level has
    both a bandwidth and an intensity."""
    roofs = [(bandwidth[lv] * intensities[lv], lv) for lv in LEVELS if lv in bandwidth and lv in intensities]
    if not roofs:
        return None
    gflops, level = min(roofs)
    return level, gflops


def place(intensities, bandwidth, ceiling=None):
    """Where a step stands on the roofline, every number the figure shows of it: the level
    whose memory roof is lowest at the step's intensities (the point is drawn at its intensity
    against that level), that roof, each level's roof, and the bound, the lower of that roof
    and `ceiling` (the peak of the ISA the step ran): "compute" or the level. The point, the
    line from it to its bound and the caption under the figure all come from this, so they
    cannot disagree. None when no level has both a bandwidth and an intensity."""
    where = bound(intensities, bandwidth)
    if where is None:
        return None
    level, roof = where
    compute = ceiling is not None and ceiling < roof
    return {"level": level, "intensity": intensities[level], "roof": roof, "ceiling": ceiling,
            "bound": "compute" if compute else level, "limit": ceiling if compute else roof,
            "roofs": {lv: bandwidth[lv] * intensities[lv] for lv in LEVELS if lv in bandwidth and lv in intensities}}
