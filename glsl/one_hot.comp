#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// DML_ONE_HOT: along the axis, out[i] = OnValue where i is the sequence's index, else
// OffValue. Binding Aux holds the indices, Src the OffValue, Aux2 the OnValue.
#include "gather_common.glsl"

// The index normalised into [0, n), or NO_AXIS (never a valid index since n < 2^32)
// when it is out of range: signed values count from the end, 64-bit values outside
// 32 bits are out of range, never truncated.
uint read_index(uint a, uint n)
{
    const uint type = AUX_TYPE;
    uint lo = aux_word(a), hi = aux_high(a);
    bool negative = (type == AUX_I32 && int(lo) < 0) || (type == AUX_I64 && int(hi) < 0);
    if (negative) {
        // Magnitude of a negative value: |v| = 2^32 - lo when hi is all ones (64-bit) or
        // for 32-bit values; anything below -2^32 is out of range.
        if (type == AUX_I64 && hi != 0xffffffffu) return NO_AXIS;
        if (lo == 0u) return NO_AXIS;                 // exactly -2^32
        uint mag = 0u - lo;
        return mag <= n ? n - mag : NO_AXIS;
    }
    if (hi != 0u) return NO_AXIS;
    return lo < n ? lo : NO_AXIS;
}

uvec2 g_on, g_off; // the two values, read once per invocation

void load_op()
{
    g_off = load_src(pc.rem_src);
    g_on = load_aux2(pc.rem_aux2);
}

uint row_index(uint ia)
{
    if (ia != g_aux_addr) {
        g_aux_addr = ia;
        g_aux_value = read_index(ia, g_n);
    }
    return g_aux_value;
}

// 16 bytes of elements j0.. sharing one index: OffValue everywhere, OnValue where the
// sequence position equals the index.
bool fetch_vec(uint sb, uint ab, uint row_axis, uint j0, out uvec4 v)
{
    v = splat(g_off);
    if (g_aux_step != 0u) return false;
    uint k = row_index(ab);
    if (g_axis == g_last) {
        uint i0 = g_axis_origin + j0;
        if (k != NO_AXIS && k >= i0 && k - i0 < 16u / ESIZE) v = with_element(v, k - i0, g_on);
    } else if (row_axis == k) {
        v = splat(g_on);
    }
    return true;
}

bool fetch(uint sb, uint ab, uint row_axis, uint j, out uvec2 v)
{
    uint k = row_index(ab + j * g_aux_step);
    uint i = g_axis == g_last ? g_axis_origin + j : row_axis;
    v = i == k ? g_on : g_off;
    return true;
}

// FAST (the host checks that the index is constant along a row): write-only. The row's
// index is read once; a chunk is OffValue with OnValue where the index falls (V_ALONG),
// or, across the axis (V_ACROSS), all OnValue on the row the index names.
uint g_k, g_row_axis;
void row_begin(uint sb, uint ab, uint row_axis)
{
    g_k = read_index(ab, g_n);
    g_row_axis = row_axis;
}
// Write-only: nothing carried from chunk to chunk.
const bool STREAMS = false;
void chunk_prime(uint j0) {}

bool chunk_vec(uint j0, out uvec4 v)
{
    if (VARIANT == V_ACROSS) {
        v = splat(g_row_axis == g_k ? g_on : g_off);
        return true;
    }
    v = splat(g_off);
    const uint i0 = g_axis_origin + j0;
    if (g_k != NO_AXIS && g_k >= i0 && g_k - i0 < 16u / ESIZE) v = with_element(v, g_k - i0, g_on);
    return true;
}
bool row_elem(uint j, out uvec2 x)
{
    x = (VARIANT == V_ALONG ? g_axis_origin + j : g_row_axis) == g_k ? g_on : g_off;
    return true;
}

#include "gather_main.glsl"
