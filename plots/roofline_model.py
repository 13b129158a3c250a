"""The roofline model of each step's loop nest (docs/roofline.md derives every formula): the bytes a
multiply-add moves from each level (L1: loads and stores; L2: L1 misses in lines; L3: into L2; DRAM: into
L3), from the register tile, the blocks and the caches; hence its intensity and bound. Standard library only.
"""

FLOAT = 4        # bytes
LINE = 64        # bytes per cache line
LEVELS = ("L1", "L2", "L3", "DRAM")

# Each step's loop nest as the model sees it (its register tile comes from cpuinfo --json): steps 01 and
# 02 store C after every multiply-add (C might alias A or B), from 03 on C stays in registers over k;
# blocked: kc x mc cache blocks (06 on); packed: A and B copied into slivers (07 on).
STEPS = {number: {"c_in_registers": number >= 3, "blocked": number >= 6, "packed": number >= 7}
         for number in range(1, 11)}


def fits(nbytes, cache):
    """A block stays in a cache when it takes at most half of it (the other half: the data streaming past)."""
    return cache > 0 and nbytes <= cache / 2


def unblocked(n, nest, caches):
    """Bytes per multiply-add at each level for loops j > i > p, A and B in place (01-05; 10 unpacked)."""
    mr, nr = nest["mr"], nest["nr"]
    l1, l2, l3 = caches["L1"], caches["L2"], caches["L3"]
    # Registers <- L1: mr of A and nr of B per mr*nr multiply-adds; C stored after each: 12 bytes.
    reg = FLOAT * (mr + nr) / (mr * nr) if nest["c_in_registers"] else 3 * FLOAT
    # L1 <- L2: the B sliver (n lines) once when it fits in L1, else a line per step of p; A streams.
    b_sliver = n * LINE
    b_l2 = FLOAT / n if fits(b_sliver, l1) else LINE / (mr * nr)
    a_stream = FLOAT / nr
    into_l1 = b_l2 + a_stream
    # L2 <- L3: all of A again for every B sliver unless A fits in L2; the B sliver as above.
    a_bytes = FLOAT * n * n
    a_l3 = FLOAT / n if fits(a_bytes, l2) else a_stream
    into_l2 = a_l3 + (FLOAT / n if fits(b_sliver, l2) else LINE / (mr * nr))
    # L3 <- DRAM: A, B and C once when they fit in L3, else A again for every B sliver.
    into_l3 = 3 * FLOAT / n if fits(3 * a_bytes, l3) else a_stream
    return {"L1": reg, "L2": into_l1, "L3": into_l2, "DRAM": into_l3}


def blocked(n, nest, caches, blocks):
    """Bytes per multiply-add at each level for the blocked nest (06-10): pc > ic (A block in L2) > jr (B
    sliver in L1 when it fits) > ir; nc columns per B panel (n for steps 06 and 07)."""
    mr, nr = nest["mr"], nest["nr"]
    kc = n / -(-n // blocks["kc"])   # the mean depth of the ceil(n / kc) slices: what the passes over C see
    mc, nc = min(blocks["mc"], n), min(blocks.get("nc", n), n)
    l1, l2, l3 = caches["L1"], caches["L2"], caches["L3"]
    c_tile = 2 * FLOAT / kc              # the C tile loaded and stored once per kc steps of p
    reg = FLOAT * (mr + nr) / (mr * nr) + c_tile
    # L1 <- L2: the B sliver once per block if it fits in L1, else for every A sliver; the A sliver streams.
    b_sliver = kc * (nr * FLOAT if nest["packed"] else LINE)
    b_use = (nr * FLOAT if nest["packed"] else LINE) / (mr * nr)
    b_l2 = b_sliver / (kc * mc * nr) if fits(b_sliver, l1) else b_use
    into_l1 = b_l2 + FLOAT / nr + c_tile
    # L2 <- L3: A once per B panel; B again for every A block unless both fit; C once per kc slice.
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


def bytes_per_fma(number, tile, n, caches, blocks=None, in_place=False):
    """{level: bytes per multiply-add} of step `number` with tile (mr, nr), or None for no model; in_place: the
    step's plan reads this product's A and B where they are (step 10's small products: cpuinfo --json's path)."""
    if number not in STEPS or not tile:   # a lab step, or a variant without a tile
        return None
    nest = dict(STEPS[number], mr=tile[0], nr=tile[1])
    if nest["blocked"] and blocks and not in_place:
        return blocked(n, nest, caches, blocks)
    if nest["blocked"] and not blocks and number in (6, 7):
        return None   # blocked steps need their block sizes
    return unblocked(n, nest, caches)


def intensity(traffic):
    return {level: 2.0 / b for level, b in traffic.items() if b > 0}


def place(intensities, bandwidth, ceiling=None):
    """Every number the figure shows of a step (so that point, line and caption agree): the level whose roof
    (bandwidth x intensity) is lowest, that roof, each level's roof, and the bound, "compute" when `ceiling`
    is lower; or None."""
    roofs = {lv: bandwidth[lv] * intensities[lv] for lv in LEVELS if lv in bandwidth and lv in intensities}
    if not roofs:
        return None
    roof, level = min((gflops, lv) for lv, gflops in roofs.items())
    compute = ceiling is not None and ceiling < roof
    return {"level": level, "intensity": intensities[level], "roof": roof, "ceiling": ceiling,
            "bound": "compute" if compute else level, "limit": ceiling if compute else roof, "roofs": roofs}
