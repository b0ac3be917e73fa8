# The minimum profile with 64-byte alignments: the table gives 256 as the largest
# minTexelBufferOffsetAlignment, minUniformBufferOffsetAlignment,
# minStorageBufferOffsetAlignment and nonCoherentAtomSize allowed; 64 sits between that and
# lavapipe's 16, as Turnip's texel and uniform alignments do (adreno618-turnip.profile).
include = min.profile
name = min-align64
minTexelBufferOffsetAlignment = 64
minUniformBufferOffsetAlignment = 64
minStorageBufferOffsetAlignment = 64
nonCoherentAtomSize = 64
