/* What the kernel charges for the recorder's maps: estimated before they are made (to choose
 * the layout and size them within a budget) and read back once they are (fdinfo memlock). */
#ifndef PINCHPOINT_MAP_MEMORY_H
#define PINCHPOINT_MAP_MEMORY_H

#include <linux/types.h>

/* Sizes of the kernel's own structures, read from its BTF (constants of 6.x where absent). */
struct kernel_sizes {
	__u64 htab;      /* struct bpf_htab */
	__u64 htab_elem; /* struct htab_elem */
	__u64 bucket;    /* struct bucket */
	__u64 array;     /* struct bpf_array */
};

struct kernel_sizes kernel_sizes(void);

/* Bytes a hash map is charged (kernel/bpf/hashtab.c, htab_map_mem_usage) with `used` of its
 * `max_entries` entries made (all of them when preallocated) on `ncpus` possible CPUs. */
__u64 hash_bytes(const struct kernel_sizes *k, int ncpus, int percpu, int prealloc, __u32 key_size,
		 __u32 value_size, __u32 max_entries, __u64 used);

/* Bytes an array map is charged (kernel/bpf/arraymap.c, array_map_mem_usage). */
__u64 array_bytes(const struct kernel_sizes *k, int ncpus, int percpu, int mmapable,
		  __u32 value_size, __u32 max_entries);

/* The memlock the kernel reports for the map open as `fd` in this process; 0 when unknown. */
__u64 map_memlock(int fd);

#endif
