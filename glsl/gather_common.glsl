// Shared by the three gather kernels. Every kernel computes output elements from their
// coordinates; the operator-specific part is fetch(). Layout of a piece's parameters
// (one 64-word record per descriptor set) mirrors src/vk/vk_abi.h.
//
// No optional device feature is used: elements of 1, 2 and 8 bytes move as 32-bit
// words, all index math is 32-bit, and addresses are byte offsets inside the bound
// window (the host keeps every window below maxStorageBufferRange, so they fit).

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ESIZE = 4u;
// Consecutive units one invocation handles before stepping over the grid: 1 keeps
// neighbouring lanes on neighbouring addresses (GPUs); CPU devices prefer long runs,
// which amortise the coordinate bookkeeping.
layout(constant_id = 2) const uint RUN = 1u;

layout(std430, set = 0, binding = 0) readonly buffer Params { uint p[]; };
layout(std430, set = 0, binding = 1) buffer Dst { uint dst[]; };
layout(std430, set = 0, binding = 2) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 3) readonly buffer Aux { uint aux[]; };
layout(std430, set = 0, binding = 4) readonly buffer Aux2 { uint aux2[]; };

// Dynamic per-dispatch values: the byte remainders of the aligned-down windows.
layout(push_constant) uniform Push {
    uint rem_dst;
    uint rem_src;
    uint rem_aux;
    uint rem_aux2;
} pc;

// Indices into p[] (src/vk/vk_abi.h).
const uint P_RANK = 0u, P_UNITS = 1u, P_MODE = 2u, P_PER_ROW = 3u, P_AXIS = 4u, P_AXIS_ORIGIN = 5u,
           P_N = 6u, P_WIN_LO = 7u, P_WIN_HI = 8u, P_AUX_TYPE = 9u, P_DST_BASE = 10u, P_SRC_BASE = 11u,
           P_AUX_BASE = 12u, P_M = 13u, P_AXIS_SRC_STRIDE = 14u, P_SIZE = 16u, P_DST_STRIDE = 24u,
           P_SRC_STRIDE = 32u, P_AUX_STRIDE = 40u;
const uint MODE_ELEMENT = 0u, MODE_WORD = 1u;
const uint NO_AXIS = 0xffffffffu;

// An element of ESIZE bytes at byte address a, as up to two words.
#define DEFINE_LOAD(NAME, BUF)                                                            \
    uvec2 NAME(uint a) {                                                                  \
        uint w = a >> 2u;                                                                 \
        if (w + (ESIZE == 8u ? 1u : 0u) >= uint(BUF.length())) return uvec2(0u);          \
        if (ESIZE == 8u) return uvec2(BUF[w], BUF[w + 1u]);                               \
        if (ESIZE == 4u) return uvec2(BUF[w], 0u);                                        \
        return uvec2(bitfieldExtract(BUF[w], int((a & 3u) * 8u), int(ESIZE * 8u)), 0u);   \
    }
DEFINE_LOAD(load_src, src)
DEFINE_LOAD(load_aux, aux)
DEFINE_LOAD(load_aux2, aux2)

uint aux_word(uint a)
{
    uint w = a >> 2u;
    return w < uint(aux.length()) ? aux[w] : 0u;
}

// Parameters the per-element functions use, loaded once per invocation.
uint g_last, g_src_step, g_aux_step, g_n, g_axis, g_axis_origin, g_win_lo, g_win_hi, g_aux_type, g_axis_src_stride;

void load_globals()
{
    g_last = p[P_RANK] - 1u;
    g_src_step = p[P_SRC_STRIDE + g_last];
    g_aux_step = p[P_AUX_STRIDE + g_last];
    g_n = p[P_N];
    g_axis = p[P_AXIS];
    g_axis_origin = p[P_AXIS_ORIGIN];
    g_win_lo = p[P_WIN_LO];
    g_win_hi = p[P_WIN_HI];
    g_aux_type = p[P_AUX_TYPE];
    g_axis_src_stride = p[P_AXIS_SRC_STRIDE];
}

// The last aux element decoded (a length or an index) and its address: along a row the
// aux address rarely changes, so most elements skip the read.
uint g_aux_addr = 0xffffffffu, g_aux_value;

// Aux element types (P_AUX_TYPE).
const uint AUX_U32 = 0u, AUX_I32 = 1u, AUX_U64 = 2u, AUX_I64 = 3u;

// Words of an 8-byte aux element: low at a, high at a + 4 (little-endian, like the host).
uint aux_high(uint a, uint type) { return type >= AUX_U64 ? aux_word(a + 4u) : 0u; }
