"""The MatMulNBits catalogue: one configuration per thing checked, each with the data sets that kill every
fault model of its group (matmul_nbits_faults.group_key: one group per configuration)."""

from __future__ import annotations

from generator.families.matmul_nbits.config import Config
from generator.family import Catalogue

CATALOGUE = Catalogue()


@CATALOGUE
def bits4_default_zero_point():
    """No zero_points: 2**(bits - 1) = 8 [zero_points: 'If not provided, a default zero point is used']."""
    return Config("bits4_default_zero_point")


@CATALOGUE
def bits2_default_zero_point():
    """bits 2: four codes a byte, lowest first; default zero point 2."""
    return Config("bits2_default_zero_point", bits=2, K=64)


@CATALOGUE
def bits8_default_zero_point():
    """bits 8: one code a byte; default zero point 128."""
    return Config("bits8_default_zero_point", bits=8)


@CATALOGUE
def bits_attribute_absent():
    """bits left out: the schema's default 4."""
    return Config("bits_attribute_absent", bits=None)


@CATALOGUE
def bits4_packed_zero_points_padded_rows():
    """Packed zero points, k_blocks = 3 (12 bits a row: each row padded to 2 bytes) [zero_points: 'Packed (uint8)
    format has shape (N, ceil(k_blocks * bits / 8))'], padding codes random."""
    return Config("bits4_packed_zero_points_padded_rows", K=48, N=4, zero_points="packed")


@CATALOGUE
def bits2_packed_zero_points_padded_rows():
    """bits 2, k_blocks = 3: three zero points in a byte of four."""
    return Config("bits2_packed_zero_points_padded_rows", bits=2, K=48, N=3, zero_points="packed")


@CATALOGUE
def bits8_packed_zero_points():
    return Config("bits8_packed_zero_points", bits=8, K=48, zero_points="packed")


@CATALOGUE
def bits4_typed_zero_points():
    """Unpacked zero points of A's type, halves: (q - zero_point) * scale with a fractional zero point."""
    return Config("bits4_typed_zero_points", K=48, zero_points="typed")


@CATALOGUE
def bits2_typed_zero_points():
    """2-bit weights, typed zero points, neither g_idx nor bias; "typed_zp_mid": every zero point 1.5, the
    symmetric 2-bit one (codes - 1.5 in -1.5 .. 1.5)."""
    return Config("bits2_typed_zero_points", bits=2, K=48, zero_points="typed",
                  kinds=("random", "random", "typed_zp", "typed_zp_mid"))


@CATALOGUE
def bits8_typed_zero_points():
    return Config("bits8_typed_zero_points", bits=8, zero_points="typed")


@CATALOGUE
def k_tail_bits4():
    """K = 40, block_size 16: the last block holds 8 codes and 8 padding codes (random), which are not used;
    rows of B are k_blocks * blob_size bytes apart."""
    return Config("k_tail_bits4", K=40, N=3, zero_points="packed")


@CATALOGUE
def k_tail_bits2():
    return Config("k_tail_bits2", bits=2, block_size=32, K=36, N=3)


@CATALOGUE
def k_tail_bits8():
    return Config("k_tail_bits8", bits=8, K=20, N=3, zero_points="typed")


@CATALOGUE
def k_tail_bits2_blocks():
    """bits 2, 4 blocks of 32, the last of 4 codes (28 padding codes)."""
    return Config("k_tail_bits2_blocks", bits=2, block_size=32, K=100, N=3)


@CATALOGUE
def k_tail_bits8_blocks():
    """bits 8, 4 blocks of 16, the last of 8, packed zero points."""
    return Config("k_tail_bits8_blocks", bits=8, K=56, N=3, zero_points="packed")


@CATALOGUE
def n_13():
    """N = 13: beyond a tile of 8 and no multiple of 4, 8 or 16 (kernels tile N)."""
    return Config("n_13", K=32, N=13, zero_points="packed")


@CATALOGUE
def n_24_bits2():
    """N = 24: a multiple of 8, not of 16; 2-bit weights."""
    return Config("n_24_bits2", bits=2, K=64, N=24, a_shape=(1,))


@CATALOGUE
def block_size_512():
    """block_size 512 (onnxruntime#28551: zeros on the CPU EP of 1.26)."""
    return Config("block_size_512", block_size=512, K=512, N=2, a_shape=(1,))


@CATALOGUE
def bits2_block_size_512():
    """bits 2, block_size 512: any power of 2 >= 16 is allowed (onnxruntime's CPU kernel refuses 2-bit blocks
    above 256)."""
    return Config("bits2_block_size_512", bits=2, block_size=512, K=512, N=2, a_shape=(1,))


@CATALOGUE
def block_size_1024_k_tail():
    """block_size 1024 with K = 1000: one block, 24 padding codes."""
    return Config("block_size_1024_k_tail", block_size=1024, K=1000, N=2, a_shape=(1,), zero_points="packed")


@CATALOGUE
def block_size_128():
    return Config("block_size_128", block_size=128, K=256, N=2, a_shape=(1,))


@CATALOGUE
def g_idx():
    """g_idx (deprecated, still read by the CPU kernel): k uses the scale and zero point of block g_idx[k]."""
    return Config("g_idx", K=64, N=4, zero_points="packed", g_idx=True)


@CATALOGUE
def g_idx_bits2():
    """g_idx with 2-bit codes and no zero points (default 2)."""
    return Config("g_idx_bits2", bits=2, K=48, N=2, g_idx=True)


@CATALOGUE
def g_idx_padded():
    """g_idx of k_blocks * block_size = 48 entries for K = 40, the shape onnxruntime's own tests give it (the text
    gives none: READING_G_IDX): its first K entries name the blocks, the tail's 8 are never read."""
    return Config("g_idx_padded", K=40, N=3, zero_points="packed", g_idx=True, g_idx_padded=True)


@CATALOGUE
def g_idx_k_tail():
    """g_idx with K = 40 (3 blocks of 16, the last of 8): g_idx has K entries, not k_blocks * block_size."""
    return Config("g_idx_k_tail", K=40, N=3, g_idx=True)


@CATALOGUE
def g_idx_out_of_range():
    """g_idx values -1 and k_blocks: the probe (the text says nothing; what each backend returns is recorded)."""
    return Config("g_idx_out_of_range", K=32, N=2, g_idx=True, kinds=("g_idx_out_of_range",))


@CATALOGUE
def bias():
    """bias [N] added to the product [bias: 'Bias to add to result']."""
    return Config("bias", bias=True, zero_points="packed")


@CATALOGUE
def a_3d():
    """A [2, 3, K]: Y [2, 3, N] ('The output tensor has the same rank as the input')."""
    return Config("a_3d", a_shape=(2, 3))


@CATALOGUE
def a_3d_bias():
    """A [2, 3, K] with a bias: [N] added to every row of the 3-D result."""
    return Config("a_3d_bias", a_shape=(2, 3), bias=True)


@CATALOGUE
def bias_without_zero_points():
    """zero_points and g_idx given as '' before the bias (the node's inputs A, B, scales, '', '', bias)."""
    return Config("bias_without_zero_points", bias=True)


@CATALOGUE
def a_1d():
    """A [K]: Y [N] ('The output tensor has the same rank as the input')."""
    return Config("a_1d", a_shape=(), zero_points="packed")


@CATALOGUE
def a_1_row():
    return Config("a_1_row", a_shape=(1,), N=8)


@CATALOGUE
def zero_weights():
    """Every code equal to its zero point: every product is zero, Y = bias exactly."""
    return Config("zero_weights", zero_points="packed", bias=True, kinds=("zero", "random"))


@CATALOGUE
def explicit_defaults():
    """The explicit-defaults axis: bits 4 and accuracy_level 0 written with their default values."""
    return Config("explicit_defaults", accuracy_level=0)


@CATALOGUE
def accuracy_level_1():
    return Config("accuracy_level_1", accuracy_level=1)


@CATALOGUE
def accuracy_level_2():
    """accuracy_level 2 (fp16) on float32 A: the bound allows float16 arithmetic (2**-11 a term)."""
    return Config("accuracy_level_2", K=48, accuracy_level=2, zero_points="packed")


@CATALOGUE
def accuracy_level_3():
    """accuracy_level 3 (bf16) on float32 A: the bound allows bfloat16 arithmetic (2**-8 a term)."""
    return Config("accuracy_level_3", accuracy_level=3)


@CATALOGUE
def accuracy_level_4():
    """accuracy_level 4: 'input A can be quantized with the same block_size to int8': the bound adds one int8 step
    of each block of A times |w|."""
    return Config("accuracy_level_4", block_size=32, K=64, accuracy_level=4, zero_points="packed")


@CATALOGUE
def accuracy_level_4_blocks_apart():
    """accuracy_level 4, A's blocks orders of magnitude apart (one of 1024 .. 1920, the others below 1/4), K tail
    (4 blocks, the last of 8), packed zero points, bias: int8 per row of A, or truncated, leaves the bound (half an
    int8 step of each block, READING_INT8)."""
    return Config("accuracy_level_4_blocks_apart", K=56, N=4, accuracy_level=4, zero_points="packed", bias=True)


@CATALOGUE
def accuracy_level_4_blocks_apart_typed_zero_points():
    """The same with typed zero points, block_size 32, K = 80 (the last block of 16)."""
    return Config("accuracy_level_4_blocks_apart_typed_zero_points", block_size=32, K=80, N=3, accuracy_level=4,
                  zero_points="typed")


@CATALOGUE
def float16_accuracy_level_4_blocks_apart():
    """float16 A, 8-bit weights, default zero points, bias, K = 40."""
    return Config("float16_accuracy_level_4_blocks_apart", t1="float16", bits=8, K=40, N=3, accuracy_level=4,
                  bias=True)


@CATALOGUE
def float16_accuracy_level_1():
    """float16 A at accuracy_level 1 (fp32), K = 256: the bound is float32's (2**-24 a term), which a float16 sum
    leaves ("swamp": a first term of 2048 and 255 of 1/4 .. 3/4, each lost in float16)."""
    return Config("float16_accuracy_level_1", t1="float16", block_size=32, K=256, N=3, a_shape=(1,),
                  zero_points="packed", accuracy_level=1)


@CATALOGUE
def float16_accuracy_level_1_k1024():
    """float16 A at accuracy_level 1, K = 1024 (a model's hidden size): on random data a float16 sum leaves the
    float32 bound; "overflow" for the float16 block sums."""
    return Config("float16_accuracy_level_1_k1024", t1="float16", block_size=64, K=1024, N=2, a_shape=(1,),
                  accuracy_level=1, kinds=("random", "overflow"))


@CATALOGUE
def bfloat16_accuracy_level_1():
    """bfloat16 A at accuracy_level 1, K = 1024: a bfloat16 sum leaves the float32 bound."""
    return Config("bfloat16_accuracy_level_1", t1="bfloat16", block_size=128, K=1024, N=2, a_shape=(1,),
                  accuracy_level=1, kinds=("random", "swamp"))


@CATALOGUE
def float16_default_zero_point():
    """A float16 (the least precise accumulation A's type allows: float16), block sums beyond 65504 while
    the scaled result is small (onnxruntime PR #29611)."""
    return Config("float16_default_zero_point", t1="float16", block_size=32, K=64)


@CATALOGUE
def float16_bits2():
    return Config("float16_bits2", t1="float16", bits=2, K=64)


@CATALOGUE
def float16_bits8_packed_zero_points():
    return Config("float16_bits8_packed_zero_points", t1="float16", bits=8, K=48, zero_points="packed")


@CATALOGUE
def float16_typed_zero_points_bias():
    return Config("float16_typed_zero_points_bias", t1="float16", K=48, zero_points="typed", bias=True)


@CATALOGUE
def float16_k_tail():
    return Config("float16_k_tail", t1="float16", K=40, N=3, zero_points="packed")


@CATALOGUE
def float16_accuracy_level_4():
    return Config("float16_accuracy_level_4", t1="float16", block_size=32, K=64, accuracy_level=4)


@CATALOGUE
def bfloat16():
    """A bfloat16 (allowed by T1 since onnxruntime PR #24828)."""
    return Config("bfloat16", t1="bfloat16")


def configs() -> list[Config]:
    return [fn() for fn in CATALOGUE.values()]


@CATALOGUE
def m_0():
    """A [0, K]: Y [0, N] (numpy.matmul's empty product)."""
    return Config("m_0", a_shape=(0,), zero_points="packed", bias=True, kinds=("random",))


@CATALOGUE
def n_0():
    """N = 0: B [0, k_blocks, blob_size], scales and zero points [0, k_blocks], bias [0]: Y [M, 0]."""
    return Config("n_0", N=0, zero_points="packed", bias=True, kinds=("random",))


@CATALOGUE
def k_0():
    """K = 0: k_blocks 0, B [N, 0, blob_size], scales [N, 0]: the empty sum, Y = the broadcast bias [text, B: 'Y is
    filled with zeros (or the broadcast bias, if provided)']."""
    return Config("k_0", K=0, zero_points="packed", bias=True, kinds=("random", "random"))


@CATALOGUE
def b_omitted_k_blocks():
    """An omitted projection [text: 'When weight_prepacked is 0, B may represent an omitted projection by replacing
    one or more dimensions of its packed shape (N, k_blocks, blob_size) with 0'; 'Y is filled with zeros (or the
    broadcast bias, if provided)'; 'The contents of A, scales, zero_points and g_idx are not used']: B [N, 0,
    blob_size] with K 32 and the quantization parameters of their usual shapes: Y = bias."""
    return Config("b_omitted_k_blocks", zero_points="packed", bias=True, b_omitted=(1,), kinds=("random", "random"))


@CATALOGUE
def b_omitted_empty_parameters():
    """The omitted projection with B [N, k_blocks, 0] and no bias: Y zeros; scales and zero points empty too ('the
    quantization parameters may also be empty')."""
    return Config("b_omitted_empty_parameters", zero_points="packed", b_omitted=(2,), params_empty=True,
                  kinds=("random",))
