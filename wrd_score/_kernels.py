"""Hand-written LLVM IR for numba: the few kernels whose operations, and so whose bits, numba's own code
cannot promise. Private: the embedding store's vector code and the batch transport kernel call it.

Why it exists. Scores are pinned to the bit (``benchmarks/fingerprint.py``), and two computations must be done
in a fixed order of floating-point operations that numba's generated code does not keep, or cannot reach:

* Unit rows of a float16 embedding table (:func:`wrd_score.embeddings.vectors.table_unit_rows`) must have the
  bits of ``unit_rows(table[rows].astype(np.float64))``: the norm is numpy's sum of a contiguous row, which
  keeps eight running sums, two ``<4 x double>`` registers, folded pairwise (:func:`eight_sums`); a float16
  value is widened by the processor (:func:`widen_row`: numba has no float16 type); rows are asked into cache
  ahead of use (:func:`prefetch_row`, a hint that changes no value).
* The transport kernel's cosines (:func:`wrd_score.transport.batch._cosines`) must each be the plain
  left-to-right sum over the dimensions from 0.0, a multiply then an add (the scalar loop's order), yet run 4
  columns a vector and up to :data:`TILE_ROWS` rows at once (:func:`tile`): numba runs LLVM's loop vectoriser
  only, which may not reorder a sum, and not the SLP vectoriser that would pack independent sums.  Where the
  processor has AVX-512 (:data:`HAVE_WIDE`), larger matrices take wide tiles instead (:func:`wide_tile`: 8
  columns a vector, up to :data:`WIDE_ROWS` rows, the columns packed dimension by dimension once per block of 8
  by :func:`pack_block`): about 0.7 of the 4-lane tiles' time from 24 x 24 up on the Intel Xeon measured.  The
  lanes are independent sums, so the shape of a tile changes no bit.

Each intrinsic has a Python twin (``*_reference``, or the function itself without numba) that says what it
computes. How it is tested: ``tests/test_embeddings.py::test_table_unit_rows_are_the_bits_of_unit_rows_over_the_widened_rows``
(every row of the default embedding, every float16 bit pattern, 0 to 4,096 dimensions, the eight running sums
against ``np.add.reduce`` at 0 to 4,097 values) and ``::test_row_means_of_a_float16_table_are_numpys_means_to_the_bit``
(the widening); ``tests/test_transport.py::test_kernel_cosines_are_the_plain_ordered_sums`` (4-lane and wide tiles
of every row count and column padding, both orientations, against the scalar loop, on any processor: without
AVX-512 an ``<8 x double>`` runs as two ``<4 x double>``, the same operations); ``benchmarks/fingerprint.py``
(every score, bit for bit).

numba's on-disk cache of a compiled function (``__pycache__/*.nbi``, ``*.nbc`` beside the module that defines
it) checks only that module's file, not this one, whose intrinsics are compiled into it: after editing this
module, delete the cache (``find wrd_score -name '*.nb[ic]' -delete``) before timing or fingerprinting, or the
old code runs. A clean clone (CI) or an installed release has no stale cache.
"""
from __future__ import annotations

import numpy as np

from .deps import HAVE_NUMBA

__all__ = ["HAVE_NUMBA", "HAVE_WIDE", "TILE", "TILE_ROWS", "WIDE", "WIDE_ROWS", "eight_sums", "eight_sums_reference",
           "pack_block", "pack_block_reference", "prefetch_row", "tile", "tile_reference", "wide_tile",
           "wide_tile_reference", "widen_row"]

#: Lanes of one tile of the kernel's cosines (:func:`tile`): 4 reference tokens side by side in a vector
#: register (``<4 x double>``: any x86-64 processor with AVX, and the only tiles where there is no AVX-512).
TILE = 4
#: Most rows of one tile: many sums in flight keep both vector adders busy (an add takes 3 cycles on
#: the AMD EPYC measured; 4 sums left them idle a third of the time) and share the gather of the 4
#: lanes; at 16 rows the loop runs out of registers.
TILE_ROWS = 14
#: Lanes of a wide tile (:func:`wide_tile`): 8 reference tokens in one ``<8 x double>``, one AVX-512 register.
WIDE = 8
#: Most rows of a wide tile: 12 sums in flight cover the 4-cycle latency of an add at 2 adds and 2
#: multiplies a cycle with room to spare; 8 to 16 rows measured the same on the Intel Xeon (AVX-512), fewer
#: cases compile faster.
WIDE_ROWS = 12


#: Whether the wide tiles may be used (:func:`wrd_score.transport.batch._dot_tiles` then takes them where its cost
#: model finds them cheaper): numba compiles for a processor with AVX-512 (32 registers of 8 doubles), as the
#: features its code generator reads say (``NUMBA_CPU_FEATURES``, else the host's).  Elsewhere an ``<8 x double>``
#: would be split into two ``<4 x double>``: the same sums, the same bits, no faster than the 4-lane tiles, so only
#: the tests run them there.  Set below, where numba is.
HAVE_WIDE = False


def tile_reference(units, rows_a, i, count, rows_b, j, acc, at, w):  # pragma: no cover - the compiled twin runs
    """What the compiled ``tile`` computes, in Python: the dot products of rows ``rows_a[i:i + count]``
    of ``units`` with rows ``rows_b[j:j + 4]`` (the last one repeated past the end), each summed from
    0.0 over the dimensions in order, one product then one addition at a time, stored at
    ``acc[at + t * w + lane]``."""
    d = units.shape[1]
    for t in range(count):
        for lane in range(TILE):
            row, col = rows_a[i + t], rows_b[min(j + lane, len(rows_b) - 1)]
            total = 0.0
            for k in range(d):
                total += units[row, k] * units[col, k]
            acc[at + t * w + lane] = total


def pack_block_reference(units, rows_b, j, packed, pb):  # pragma: no cover - the compiled twin runs
    """What the compiled ``pack_block`` computes, in Python: ``packed[pb + k * WIDE + lane]`` = dimension ``k``
    of row ``rows_b[j + lane]`` of ``units`` (the last one repeated past the end): a column block's values,
    dimension by dimension, as :func:`wide_tile` reads them."""
    for lane in range(WIDE):
        packed[pb + lane:pb + lane + WIDE * units.shape[1]:WIDE] = units[rows_b[min(j + lane, len(rows_b) - 1)]]


def wide_tile_reference(units, rows_a, i, count, packed, pb, acc, at, w):  # pragma: no cover - the compiled twin runs
    """What the compiled ``wide_tile`` computes, in Python: :func:`tile_reference` with 8 lanes, the columns' values
    read from a block that :func:`pack_block_reference` packed at ``packed[pb:]``."""
    d = units.shape[1]
    for t in range(count):
        for lane in range(WIDE):
            total = 0.0
            for k in range(d):
                total += units[rows_a[i + t], k] * packed[pb + k * WIDE + lane]
            acc[at + t * w + lane] = total


def eight_sums_reference(values, lo, n):  # pragma: no cover - the compiled twin runs
    """What the compiled ``eight_sums`` computes, in Python: numpy's eight running sums over
    ``values[lo:lo + n - n % 8]`` (``n >= 8``), folded as numpy folds them."""
    r0, r1, r2, r3 = values[lo], values[lo + 1], values[lo + 2], values[lo + 3]
    r4, r5, r6, r7 = values[lo + 4], values[lo + 5], values[lo + 6], values[lo + 7]
    for i in range(lo + 8, lo + n - n % 8, 8):
        r0, r1, r2, r3 = r0 + values[i], r1 + values[i + 1], r2 + values[i + 2], r3 + values[i + 3]
        r4, r5, r6, r7 = r4 + values[i + 4], r5 + values[i + 5], r6 + values[i + 6], r7 + values[i + 7]
    return ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))


def widen_row_reference(bits, row, out, r):  # pragma: no cover - the compiled twin runs
    """What the compiled ``widen_row`` computes, in Python: ``out[r, :] = bits[row, :]`` read as float16,
    widened to float64."""
    out[r, :] = bits[row].view(np.float16).astype(np.float64)


def prefetch_row_reference(table, row):  # pragma: no cover - the compiled twin runs
    """What the compiled ``prefetch_row`` computes: nothing (a hint to the processor's cache)."""


if HAVE_NUMBA:
    from llvmlite import ir
    from numba import types
    from numba.core import codegen, config
    from numba.extending import intrinsic

    HAVE_WIDE = "+avx512f" in (config.CPU_FEATURES if config.CPU_FEATURES is not None
                               else codegen.get_host_cpu_features()).split(",")

    def ir_loop(builder, start, stop, step, carried, name, body):
        """Emit in LLVM IR ``for k in range(start, stop - step + 1, step)`` (i64 values) carrying the values
        ``carried`` (``body(k, values)`` returns their next ones); returns ``k`` and the values after the loop.
        Editing it leaves numba's cached kernels stale (see the module's docstring)."""
        i64 = ir.IntType(64)
        entry = builder.block
        head = builder.append_basic_block(name + ".head")
        inside = builder.append_basic_block(name + ".body")
        done = builder.append_basic_block(name + ".done")
        builder.branch(head)
        builder.position_at_end(head)
        k = builder.phi(i64)
        k.add_incoming(start, entry)
        phis = []
        for value in carried:
            phi = builder.phi(value.type)
            phi.add_incoming(value, entry)
            phis.append(phi)
        step_ = ir.Constant(i64, step)
        builder.cbranch(builder.icmp_signed("<=", builder.add(k, step_), stop), inside, done)
        builder.position_at_end(inside)
        after = body(k, phis)
        k.add_incoming(builder.add(k, step_), builder.block)
        for phi, value in zip(phis, after):
            phi.add_incoming(value, builder.block)
        builder.branch(head)
        builder.position_at_end(done)
        return k, phis

    def int_arg(context, builder, signature, args, i):
        """Argument ``i`` of a numba intrinsic's codegen as an LLVM i64."""
        return context.cast(builder, args[i], signature.args[i], types.int64)

    def transposed(builder, data, cols, k):
        """The values at dimensions ``k`` to ``k + 3`` of 4 rows starting at ``cols`` (i64 offsets into the
        float64 ``data``), as 4 ``<4 x double>``, one a dimension, lane ``t`` from row ``t``: 4 loads of 4
        consecutive values, transposed (2 shuffles a dimension instead of a load per lane and 3 shuffles)."""
        i32 = ir.IntType(32)
        vec = ir.VectorType(ir.DoubleType(), 4)

        def mask(lanes):
            return ir.Constant(ir.VectorType(i32, 4), lanes)

        quads = [builder.load(builder.bitcast(builder.gep(data, [builder.add(col, k)]), vec.as_pointer()), align=8)
                 for col in cols]
        even = [builder.shuffle_vector(quads[a], quads[a + 1], mask([0, 4, 2, 6])) for a in (0, 2)]
        odd = [builder.shuffle_vector(quads[a], quads[a + 1], mask([1, 5, 3, 7])) for a in (0, 2)]
        return [builder.shuffle_vector(pair[0], pair[1], mask(half))
                for pair, half in [(even, [0, 1, 4, 5]), (odd, [0, 1, 4, 5]), (even, [2, 3, 6, 7]), (odd, [2, 3, 6, 7])]]

    I64 = ir.IntType(64)

    @intrinsic
    def widen_row(typingctx, bits, row, out, r):
        """``out[r, :] = bits[row, :]`` read as float16 and widened to float64 by the processor (8 at a
        time; exact, as numpy's ``astype`` is, except that a signalling NaN comes back quiet)."""
        if not (isinstance(bits, types.Array) and bits.dtype == types.uint16 and isinstance(out, types.Array)
                and out.dtype == types.float64 and bits.ndim == out.ndim == 2 and bits.layout == out.layout == "C"):
            return None

        def codegen(context, builder, signature, args):
            half, f64, i16 = ir.HalfType(), ir.DoubleType(), ir.IntType(16)
            src = context.make_array(signature.args[0])(context, builder, args[0])
            dst = context.make_array(signature.args[2])(context, builder, args[2])
            d = builder.extract_value(src.shape, 1)
            src_at = builder.mul(int_arg(context, builder, signature, args, 1), d)
            dst_at = builder.mul(int_arg(context, builder, signature, args, 3), d)

            def widen(lanes):
                def step(k, _):
                    source = builder.gep(src.data, [builder.add(src_at, k)])
                    target = builder.gep(dst.data, [builder.add(dst_at, k)])
                    if lanes > 1:
                        source = builder.bitcast(source, ir.VectorType(i16, lanes).as_pointer())
                        target = builder.bitcast(target, ir.VectorType(f64, lanes).as_pointer())
                    value = builder.load(source, align=2)
                    value = builder.bitcast(value, ir.VectorType(half, lanes) if lanes > 1 else half)
                    wide = ir.VectorType(f64, lanes) if lanes > 1 else f64
                    builder.store(builder.fpext(value, wide), target, align=8)
                    return []
                return step

            k, _ = ir_loop(builder, ir.Constant(I64, 0), d, 8, [], "widen8", widen(8))
            ir_loop(builder, k, d, 1, [], "widen1", widen(1))
            return context.get_dummy_value()

        return types.none(bits, row, out, r), codegen

    @intrinsic
    def prefetch_row(typingctx, table, row):
        """Ask the processor to start reading row ``row`` of ``table`` into cache (a hint, no value
        changes): rows are gathered in token order, scattered over a table far larger than cache."""
        if not (isinstance(table, types.Array) and table.ndim == 2 and table.layout == "C"):
            return None

        def codegen(context, builder, signature, args):
            i8, i32 = ir.IntType(8), ir.IntType(32)
            src = context.make_array(signature.args[0])(context, builder, args[0])
            d = builder.extract_value(src.shape, 1)
            start = builder.gep(src.data, [builder.mul(int_arg(context, builder, signature, args, 1), d)])
            start = builder.bitcast(start, i8.as_pointer())
            size = context.get_abi_sizeof(context.get_data_type(signature.args[0].dtype))
            nbytes = builder.mul(d, ir.Constant(I64, size))
            hint = builder.module.declare_intrinsic(
                "llvm.prefetch", (), ir.FunctionType(ir.VoidType(), [i8.as_pointer(), i32, i32, i32]))

            def line(k, _):
                # read (0), keep in all cache levels (3), data (1)
                builder.call(hint, [builder.gep(start, [k])] + [ir.Constant(i32, c) for c in (0, 3, 1)])
                return []

            # every 64-byte line the row touches, its last byte included
            ir_loop(builder, ir.Constant(I64, 0), builder.add(nbytes, ir.Constant(I64, 63)), 64, [], "prefetch", line)
            return context.get_dummy_value()

        return types.none(table, row), codegen

    @intrinsic
    def eight_sums(typingctx, values, lo, n):
        """:func:`eight_sums_reference` with its eight running sums as two ``<4 x double>`` (as numpy
        keeps them in vector registers): lane ``t`` of the pair adds ``values[lo + t + 8i]`` in order,
        so the sums, and their fold, are numpy's bits."""
        if not (isinstance(values, types.Array) and values.dtype == types.float64 and values.ndim == 1
                and values.layout == "C"):
            return None

        def codegen(context, builder, signature, args):
            f64, i32 = ir.DoubleType(), ir.IntType(32)
            vec = ir.VectorType(f64, 4)
            data = context.make_array(signature.args[0])(context, builder, args[0])
            lo_ = int_arg(context, builder, signature, args, 1)
            n_ = int_arg(context, builder, signature, args, 2)
            end = builder.sub(n_, builder.srem(n_, ir.Constant(I64, 8)))

            def load(at):
                where = builder.gep(data.data, [builder.add(lo_, at)])
                return builder.load(builder.bitcast(where, vec.as_pointer()), align=8)

            four = ir.Constant(I64, 4)

            def add(k, sums):
                return [builder.fadd(sums[0], load(k)), builder.fadd(sums[1], load(builder.add(k, four)))]

            _, (low, high) = ir_loop(builder, ir.Constant(I64, 8), end, 8,
                                      [load(ir.Constant(I64, 0)), load(four)], "eight", add)

            def fold(v):
                lane = [builder.extract_element(v, ir.Constant(i32, t)) for t in range(4)]
                return builder.fadd(builder.fadd(lane[0], lane[1]), builder.fadd(lane[2], lane[3]))

            return builder.fadd(fold(low), fold(high))

        return types.float64(values, lo, n), codegen

    def fits(a, ndim, real):
        """A C-contiguous array of ``ndim`` dimensions, of float64 (``real``) or of integers."""
        return (isinstance(a, types.Array) and a.layout == "C" and a.ndim == ndim
                and (a.dtype == types.float64 if real else isinstance(a.dtype, types.Integer)))

    def column_starts(context, builder, array, kind, j, lanes, d):
        """Offsets into the table of rows ``array[j + lane]`` for each lane (the last row repeated past the end)."""
        i64 = ir.IntType(64)
        last = builder.sub(builder.extract_value(array.shape, 0), ir.Constant(i64, 1))
        cols = []
        for lane in range(lanes):
            col = builder.add(j, ir.Constant(i64, lane))
            row = builder.load(builder.gep(array.data, [builder.select(builder.icmp_signed("<", col, last), col, last)]))
            cols.append(builder.mul(context.cast(builder, row, kind.dtype, types.int64), d))
        return cols

    def row_tiles(context, builder, signature, args, lanes, most, name, columns):
        """The code shared by :func:`tile` and :func:`wide_tile` (arguments ``units, rows_a, i, count, _, _, acc,
        at, w``): for ``count`` (1 to ``most``) rows ``rows_a[i:]``, one ``<lanes x double>`` sum per row, each
        lane adding, dimension by dimension from 0.0, the row's value times the lane's (a multiply then an add),
        stored at ``acc[at + t * w:]``.  ``columns(d, k, step)``: the lanes' values at dimensions ``k`` to
        ``k + step - 1`` (``step`` 4 or 1), one vector a dimension."""
        f64, i64, i32 = ir.DoubleType(), ir.IntType(64), ir.IntType(32)
        vec = ir.VectorType(f64, lanes)
        kinds = signature.args
        table, first, out = (context.make_array(kinds[a])(context, builder, args[a]) for a in (0, 1, 6))
        i_, count_, at_, w_ = (int_arg(context, builder, signature, args, a) for a in (2, 3, 7, 8))
        d = builder.extract_value(table.shape, 1)
        fetch = columns(d)
        done = builder.append_basic_block(f"{name}.done")
        switch = builder.switch(count_, done)
        splat = ir.Constant(ir.VectorType(i32, lanes), [0] * lanes)
        for rows in range(1, most + 1):
            block = builder.append_basic_block(f"{name}.rows{rows}")
            switch.add_case(ir.Constant(i64, rows), block)
            builder.position_at_end(block)
            starts = column_starts(context, builder, first, kinds[1], i_, rows, d)

            def step(width):
                def run(k, sums):
                    for q, values in enumerate(fetch(k, width)):
                        at = builder.add(k, ir.Constant(i64, q))
                        after = []
                        for t in range(rows):
                            value = builder.load(builder.gep(table.data, [builder.add(starts[t], at)]))
                            x = builder.insert_element(ir.Constant(vec, ir.Undefined), value, ir.Constant(i32, 0))
                            x = builder.shuffle_vector(x, ir.Constant(vec, ir.Undefined), splat)
                            after.append(builder.fadd(sums[t], builder.fmul(x, values)))
                        sums = after
                    return sums
                return run

            zero = ir.Constant(vec, [0.0] * lanes)
            k, sums = ir_loop(builder, ir.Constant(i64, 0), d, 4, [zero] * rows, f"{name}{rows}x4", step(4))
            _, sums = ir_loop(builder, k, d, 1, sums, f"{name}{rows}x1", step(1))
            for t in range(rows):
                where = builder.gep(out.data, [builder.add(at_, builder.mul(ir.Constant(i64, t), w_))])
                builder.store(sums[t], builder.bitcast(where, vec.as_pointer()), align=8)
            builder.branch(done)
        builder.position_at_end(done)
        return context.get_dummy_value()

    def gathered(context, builder, data, cols, k):
        """One vector of the values at dimension ``k`` of the rows starting at ``cols``: a load per lane."""
        i32 = ir.IntType(32)
        lanes = ir.Constant(ir.VectorType(ir.DoubleType(), len(cols)), ir.Undefined)
        for lane, col in enumerate(cols):
            lanes = builder.insert_element(lanes, builder.load(builder.gep(data, [builder.add(col, k)])),
                                           ir.Constant(i32, lane))
        return lanes

    @intrinsic
    def tile(typingctx, units, rows_a, i, count, rows_b, j, acc, at, w):
        """:func:`tile_reference` in LLVM vector code: one ``<4 x double>`` sum per row, whose lanes are
        the 4 columns (their values gathered 4 dimensions at a time: 4 loads, transposed), up to
        ``TILE_ROWS`` sums in flight.  Each lane adds its products in dimension order from 0.0 with a
        plain multiply then add (no fused multiply-add, no reassociation): the operations of a scalar
        loop, so the same bits.  An intrinsic because numba runs LLVM's loop vectoriser only (not the SLP vectoriser
        that would pack independent sums), and that may not reorder a sum.  ``count`` (1 to
        ``TILE_ROWS``) picks one of ``TILE_ROWS`` loops, each with its rows' sums in registers."""
        if not (fits(units, 2, True) and fits(acc, 1, True) and fits(rows_a, 1, False) and fits(rows_b, 1, False)):
            return None

        def codegen(context, builder, signature, args):
            table = context.make_array(signature.args[0])(context, builder, args[0])
            second = context.make_array(signature.args[4])(context, builder, args[4])

            def columns(d):
                cols = column_starts(context, builder, second, signature.args[4],
                                     int_arg(context, builder, signature, args, 5), TILE, d)
                return lambda k, width: (transposed(builder, table.data, cols, k) if width == 4
                                         else [gathered(context, builder, table.data, cols, k)])

            return row_tiles(context, builder, signature, args, TILE, TILE_ROWS, "tile", columns)

        return types.none(units, rows_a, i, count, rows_b, j, acc, at, w), codegen

    @intrinsic
    def pack_block(typingctx, units, rows_b, j, packed, pb):
        """:func:`pack_block_reference` in LLVM vector code: the 8 rows' values 4 dimensions at a time (two 4 x 4
        transposes, :func:`transposed`), one ``<8 x double>`` store a dimension.  Copies only: no value changes."""
        if not (fits(units, 2, True) and fits(rows_b, 1, False) and fits(packed, 1, True)):
            return None

        def codegen(context, builder, signature, args):
            i64, i32 = ir.IntType(64), ir.IntType(32)
            vec = ir.VectorType(ir.DoubleType(), WIDE)
            table, second, out = (context.make_array(signature.args[a])(context, builder, args[a]) for a in (0, 1, 3))
            j_, pb_ = (int_arg(context, builder, signature, args, a) for a in (2, 4))
            d = builder.extract_value(table.shape, 1)
            cols = column_starts(context, builder, second, signature.args[1], j_, WIDE, d)
            whole = ir.Constant(ir.VectorType(i32, WIDE), list(range(WIDE)))

            def store(k, lanes):
                where = builder.gep(out.data, [builder.add(pb_, builder.mul(k, ir.Constant(i64, WIDE)))])
                builder.store(lanes, builder.bitcast(where, vec.as_pointer()), align=8)

            def step4(k, _):
                low, high = transposed(builder, table.data, cols[:4], k), transposed(builder, table.data, cols[4:], k)
                for q in range(4):
                    store(builder.add(k, ir.Constant(i64, q)), builder.shuffle_vector(low[q], high[q], whole))
                return []

            def step1(k, _):
                store(k, gathered(context, builder, table.data, cols, k))
                return []

            k, _ = ir_loop(builder, ir.Constant(i64, 0), d, 4, [], "pack4", step4)
            ir_loop(builder, k, d, 1, [], "pack1", step1)
            return context.get_dummy_value()

        return types.none(units, rows_b, j, packed, pb), codegen

    @intrinsic
    def wide_tile(typingctx, units, rows_a, i, count, packed, pb, acc, at, w):
        """:func:`wide_tile_reference` in LLVM vector code: :func:`tile` with one ``<8 x double>`` sum per row
        (AVX-512), up to ``WIDE_ROWS`` rows, the 8 columns' values one load a dimension from the block
        :func:`pack_block` packed (no shuffles in the loop).  Each lane adds its products in dimension order
        from 0.0 with a plain multiply then add: the same bits as :func:`tile` and the scalar loop."""
        if not (fits(units, 2, True) and fits(rows_a, 1, False) and fits(packed, 1, True) and fits(acc, 1, True)):
            return None

        def codegen(context, builder, signature, args):
            i64 = ir.IntType(64)
            vec = ir.VectorType(ir.DoubleType(), WIDE)
            block = context.make_array(signature.args[4])(context, builder, args[4])
            pb_ = int_arg(context, builder, signature, args, 5)

            def columns(d):
                def load(k):
                    where = builder.gep(block.data, [builder.add(pb_, builder.mul(k, ir.Constant(i64, WIDE)))])
                    return builder.load(builder.bitcast(where, vec.as_pointer()), align=8)

                return lambda k, width: [load(builder.add(k, ir.Constant(i64, q))) for q in range(width)]

            return row_tiles(context, builder, signature, args, WIDE, WIDE_ROWS, "wide", columns)

        return types.none(units, rows_a, i, count, packed, pb, acc, at, w), codegen
else:  # pragma: no cover - without numba the callers take numpy's path, or these twins
    eight_sums = eight_sums_reference
    widen_row = widen_row_reference
    prefetch_row = prefetch_row_reference
    tile = tile_reference
    pack_block = pack_block_reference
    wide_tile = wide_tile_reference
