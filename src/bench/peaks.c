/* The memory's peak bandwidth and last-level cache of known devices, each entry with its
 * source (docs/performance.md prints the table). The peak is a datasheet figure, never
 * measured: the bench reports how close its best copy comes to it. The cache size decides
 * how many buffer sets a case rotates over (timing.c): a footprint under 3x the cache is
 * spread over enough sets that the GPU reads DRAM, not its L2. A device is found by its
 * Vulkan name, else by its PCI vendor and device id. */
#include <string.h>
#include <strings.h>

#include "bench.h"

#define MiB (1024ull * 1024)

static const bench_peak peaks[] = {
    /* NVIDIA's Vulkan driver names the SXM5 H100 "NVIDIA H100 80GB HBM3" (the 2026-11-27
     * run, gpu.md) and reports PCI device ids. */
    {"NVIDIA H100 SXM5 80GB", {"H100 80GB HBM3", "H100 SXM"}, 0x10de, {0x2330}, 3350, 50 * MiB, false,
     "NVIDIA H100 Tensor Core GPU datasheet: H100 SXM 3.35 TB/s (HBM3); L2: NVIDIA H100 Tensor Core GPU "
     "Architecture whitepaper, 50 MB"},
    {"NVIDIA H100 PCIe 80GB", {"H100 PCIe"}, 0x10de, {0x2331}, 2000, 50 * MiB, false,
     "NVIDIA H100 PCIe GPU product brief PB-11133-001_v02 (Nov 2022): 2,000 GB/s (HBM2e); L2: the H100 "
     "architecture whitepaper, 50 MB"},
    {"NVIDIA H100 NVL 94GB", {"H100 NVL"}, 0x10de, {0x2321}, 3900, 50 * MiB, false,
     "NVIDIA H100 Tensor Core GPU datasheet: H100 NVL 3.9 TB/s; L2: the H100 architecture whitepaper, 50 MB"},
    {"NVIDIA H200 NVL 141GB", {"H200 NVL"}, 0x10de, {0}, 4800, 50 * MiB, false,
     "NVIDIA H200 Tensor Core GPU datasheet: 4.8 TB/s (HBM3e); L2: the same GH100 die as the H100 "
     "(H100 architecture whitepaper, 50 MB)"},
    {"NVIDIA H200 SXM 141GB", {"H200"}, 0x10de, {0x2335}, 4800, 50 * MiB, false,
     "NVIDIA H200 Tensor Core GPU datasheet: 4.8 TB/s (HBM3e); L2: the same GH100 die as the H100 "
     "(H100 architecture whitepaper, 50 MB)"},
    {"NVIDIA A100 SXM4 80GB", {"A100-SXM4-80GB", "A100-SXM-80GB"}, 0x10de, {0x20b2}, 2039, 40 * MiB, false,
     "NVIDIA A100 Tensor Core GPU datasheet: A100 80GB SXM 2,039 GB/s (HBM2e); L2: NVIDIA Ampere "
     "architecture (A100) whitepaper, 40 MB"},
    {"NVIDIA A100 PCIe 80GB", {"A100 80GB PCIe", "A100-PCIE-80GB"}, 0x10de, {0x20b5}, 1935, 40 * MiB, false,
     "NVIDIA A100 Tensor Core GPU datasheet: A100 80GB PCIe 1,935 GB/s (HBM2e); L2: the A100 whitepaper, 40 MB"},
    {"NVIDIA A100 SXM4 40GB", {"A100-SXM4-40GB"}, 0x10de, {0x20b0}, 1555, 40 * MiB, false,
     "NVIDIA A100 Tensor Core GPU datasheet: A100 40GB 1,555 GB/s (HBM2); L2: the A100 whitepaper, 40 MB"},
    {"NVIDIA A100 PCIe 40GB", {"A100-PCIE-40GB"}, 0x10de, {0x20f1}, 1555, 40 * MiB, false,
     "NVIDIA A100 Tensor Core GPU datasheet: A100 40GB 1,555 GB/s (HBM2); L2: the A100 whitepaper, 40 MB"},
    /* The embedded GPUs of the device profiles (test/profile_layer/profiles): their names
     * as Mesa's drivers give them, and V3DV's ids (v3dv_device.c, as the profile cites). */
    {"Raspberry Pi 4 (BCM2711, V3D 4.2)", {"V3D 4.2"}, 0x14e4, {0xbe485fd3}, 12.8, 1 * MiB, true,
     "Raspberry Pi 4 Model B product brief: LPDDR4-3200 on a 32-bit bus, 3200 MT/s x 4 bytes = 12.8 GB/s; "
     "cache: the BCM2711's 1 MB L2 (Raspberry Pi documentation, processors), the CPU cores' and the largest "
     "on the chip: an upper bound"},
    {"Adreno 618 (Snapdragon 730G)", {"Adreno (TM) 618", "Adreno 618"}, 0x5143, {0}, 14.9, 2 * MiB, true,
     "Qualcomm Snapdragon 730G product brief: LPDDR4X at 1866 MHz on 2 x 16 bits, 3732 MT/s x 4 bytes = "
     "14.9 GB/s (a Snapdragon 7c's LPDDR4X-4266 would give 17.1); cache: not published, 2 MiB assumed, above "
     "the GPU's 512 KiB GMEM and the CPU cluster's caches"},
    {"Mali-G610 MC4 (RK3588)", {"Mali-G610"}, 0x13b5, {0}, 33.8, 3 * MiB, true,
     "Rockchip RK3588 datasheet: LPDDR4X up to 2112 MHz on 4 x 16 bits, 4224 MT/s x 8 bytes = 33.8 GB/s "
     "(the LPDDR4X of the Orange Pi 5 and Rock 5 boards); cache: the CPU cluster's 3 MB L3 (the same "
     "datasheet), the largest on the chip: an upper bound"},
};

const bench_peak *bench_peak_table(size_t *count)
{
    *count = sizeof peaks / sizeof peaks[0];
    return peaks;
}

/* The first entry whose name pattern the device's name contains (ignoring case), else
 * the first with its vendor and device id: names tell the forms of one chip apart (an
 * H100 SXM from an H100 NVL) better than ids that may be shared. */
const bench_peak *bench_peak_find(const char *name, uint32_t vendor_id, uint32_t device_id)
{
    const size_t n = sizeof peaks / sizeof peaks[0];
    for (size_t i = 0; name && i < n; i++)
        for (size_t m = 0; m < BENCH_PEAK_NAMES && peaks[i].match[m]; m++)
            if (strcasestr(name, peaks[i].match[m])) return &peaks[i];
    for (size_t i = 0; i < n; i++)
        for (size_t m = 0; m < BENCH_PEAK_IDS && peaks[i].device_ids[m]; m++)
            if (peaks[i].vendor_id == vendor_id && peaks[i].device_ids[m] == device_id) return &peaks[i];
    return NULL;
}
