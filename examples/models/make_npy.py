#!/usr/bin/env python3
"""Writes the .npy inputs and expected outputs of the example models (no NumPy needed).
The values are those of examples/seed_examples.h, i.e. the DirectML documentation pages,
and for the ONNX nodes (onnx_*.json) worked out by hand from the ONNX specification.
Run from anywhere: python3 examples/models/make_npy.py"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
CODES = {'f4': 'f', 'u4': 'I', 'i4': 'i'}


def write(name, descr, shape, values):
    order = descr[0]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, ', '.join(map(str, shape)) + (',' if len(shape) == 1 else ''))
    header += ' ' * ((64 - (10 + len(header) + 1) % 64) % 64) + '\n'
    data = struct.pack(order + CODES[descr[1:]] * len(values), *values)
    with open(os.path.join(HERE, name), 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode('latin1') + data)


# Inputs. slice_in_be.npy is big-endian on purpose: the reader converts it.
write('reverse_in.npy', '<f4', (1, 1, 3, 4), range(1, 13))
write('reverse_lengths_axis2.npy', '<u4', (1, 1, 1, 4), [2, 3, 1, 0])
write('slice_in.npy', '<f4', (1, 1, 4, 4), range(1, 17))
write('slice_in_be.npy', '>f4', (1, 1, 4, 4), range(1, 17))

# Expected outputs, one per example.
out = {
    'reverse_axis3': [2, 1, 3, 4, 8, 7, 6, 5, 11, 10, 9, 12],
    'reverse_axis2': [5, 10, 3, 4, 1, 6, 7, 8, 9, 2, 11, 12],
    'slice_strides': [2, 4, 10, 12],
    'slice_negative_stride': [14, 16, 6, 8],
    'one_hot_axis3': [1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0],
    'one_hot_axis2': [1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0],
    'one_hot_values': [2, 4, 4, 4, 4, 4, 4, 2, 4, 4, 2, 4],
    'one_hot_negative': [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
}
for name, values in out.items():
    shape = (1, 1, 2, 2) if name.startswith('slice') else (1, 1, 3, 4)
    write('expected/%s.npy' % name, '<f4', shape, values)

# The ONNX nodes' outputs, with their ONNX shapes.
onnx = {
    # data[::-1, ::-2] of [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]
    'onnx_slice_negative_step': ((3, 2), [12, 10, 8, 6, 4, 2]),
    # row r keeps its first r + 1 elements reversed
    'onnx_reverse_sequence': ((4, 4), [0, 1, 2, 3, 5, 4, 6, 7, 10, 9, 8, 11, 15, 14, 13, 12]),
    # out[i, k, j] = 1 where indices[i][j] (-1 -> 3, -4 -> 0; 5 is out of range) is k, else -1
    'onnx_one_hot': ((2, 4, 2), [-1, -1, 1, -1, -1, -1, -1, 1, -1, 1, -1, -1, -1, -1, -1, -1]),
}
for name, (shape, values) in onnx.items():
    write('expected/%s.npy' % name, '<f4', shape, values)
