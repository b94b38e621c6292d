// SPDX-License-Identifier: GPL-2.0
/* What the kernel charges for BPF maps (see map_memory.h): the formulas of kernel/bpf's
 * hashtab.c and arraymap.c (memory usage, 6.4+), with the sizes of the kernel's structures
 * taken from its BTF, so an estimate made before a map exists matches its memlock after. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "map_memory.h"

#define HASHTAB_MAP_LOCK_COUNT 8
#define LLIST_NODE 8 /* struct llist_node */
#define POINTER 8

static __u64 round8(__u64 v)
{
	return (v + 7) & ~7ull;
}

static __u64 pow2_at_least(__u64 v)
{
	__u64 p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static __u64 struct_size(const struct btf *btf, const char *name, __u64 fallback)
{
	int id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT) : -1;
	__s64 size = id > 0 ? btf__resolve_size(btf, id) : -1;

	return size > 0 ? (__u64)size : fallback;
}

struct kernel_sizes kernel_sizes(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	struct kernel_sizes k = {
		.htab = struct_size(btf, "bpf_htab", 832),
		.htab_elem = struct_size(btf, "htab_elem", 48),
		.bucket = struct_size(btf, "bucket", 16),
		.array = struct_size(btf, "bpf_array", 312),
	};

	btf__free(btf);
	return k;
}

__u64 hash_bytes(const struct kernel_sizes *k, int ncpus, int percpu, int prealloc, __u32 key_size,
		 __u32 value_size, __u32 max_entries, __u64 used)
{
	__u64 value = round8(value_size), n = max_entries;
	__u64 elem = k->htab_elem + round8(key_size) + (percpu ? POINTER : value);
	__u64 usage = k->htab + k->bucket * pow2_at_least(max_entries ? max_entries : 1) +
		      sizeof(int) * (__u64)ncpus * HASHTAB_MAP_LOCK_COUNT;

	if (prealloc) {
		if (!percpu)
			n += ncpus; /* extra elements, one per CPU, for updates in place */
		usage += elem * n;
		if (percpu)
			usage += value * ncpus * max_entries;
		else
			usage += POINTER * ncpus;
	} else {
		usage += (elem + LLIST_NODE) * used;
		if (percpu)
			usage += (LLIST_NODE + POINTER + value * ncpus) * used;
	}
	return usage;
}

static __u64 page_aligned(__u64 v)
{
	__u64 page = (__u64)sysconf(_SC_PAGESIZE);

	return (v + page - 1) / page * page;
}

__u64 array_bytes(const struct kernel_sizes *k, int ncpus, int percpu, int mmapable,
		  __u32 value_size, __u32 max_entries)
{
	__u64 value = round8(value_size);

	if (percpu)
		return k->array + max_entries * (POINTER + value * ncpus);
	if (mmapable) /* user space maps it (a .rodata): whole pages */
		return page_aligned(k->array) + page_aligned(max_entries * value);
	return k->array + max_entries * value;
}

__u64 map_memlock(int fd)
{
	char path[64], line[256];
	unsigned long long memlock = 0;
	FILE *file;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	file = fopen(path, "r");
	if (!file)
		return 0;
	while (fgets(line, sizeof(line), file))
		if (sscanf(line, "memlock: %llu", &memlock) == 1)
			break;
	fclose(file);
	return memlock;
}
