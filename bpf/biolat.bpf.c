// SPDX-License-Identifier: GPL-2.0
/* pinchpoint's block-layer latency recorder: per device and operation, a log-linear
 * histogram (8 buckets per power of two) of each request's device time (issue to
 * completion), its time queued in the block layer (insert to issue), its whole time in the
 * block layer (insert, or issue when it was not queued, to completion) and its size.
 * Aggregated in kernel maps; user space reads them, nothing is copied per I/O.
 * Raw BTF tracepoints hand over the request itself, so starts are keyed by its address.
 *
 * The hot path is kept short (docs/ebpf.md, the per-I/O budget): one lookup of the start
 * stamps, one lookup of the (device, operation) entry whose per-CPU value holds every
 * histogram densely (bucket indexes are computed, not looked up), the request's fields read
 * directly (BTF pointers) rather than through helper calls. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "biolat.h"

#define REQ_OP_MASK 0xff

const volatile bool filter_devices = false;
/* The layout the loader chose (docs/ebpf.md, memory): false, one value per CPU per entry,
 * plain adds; true, one value per entry shared by every CPU, atomic adds. The loader makes
 * `stats` and `spill` per-CPU or plain hashes to match; the branch not taken is removed by
 * the verifier. */
const volatile bool shared_layout = false;
/* CLOCK_MONOTONIC when every program was attached (set by the loader then; 0 before): a
 * request made after it has had its insertion and issue seen, so a completion of it with
 * no start stamp is an I/O lost, not one begun before the window. */
__u64 window_start = 0;

struct start {
	__u64 insert;
	__u64 issue;
};

/* Preallocated: an update in the hot path takes an element from a free list. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct start);
} starts SEC(".maps");

/* Allocated on first use: memory for the (device, operation) pairs that see I/O only. The
 * loader sets its type (per-CPU or shared) and its size (what the memory budget holds). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, struct stats_key);
	__type(value, struct stats);
} stats SEC(".maps");

/* Preallocated (an update never waits for memory): the entries the program could not
 * allocate in `stats` at a pair's first I/O. The loader adds them to those of `stats`. One
 * value shared by every CPU (atomic adds) in either layout: its memory does not grow with the
 * CPUs, and it is seldom used. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SPILL_ENTRIES);
	__type(key, struct stats_key);
	__type(value, struct stats);
} spill SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} devices SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, DROP_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

/* The value a new (device, operation) entry starts from. */
static const struct stats empty;

/* Older kernels keep the disk on the request itself. */
struct request___old {
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

static __always_inline void dropped(__u32 why)
{
	__u64 *n = bpf_map_lookup_elem(&drops, &why);
	if (n)
		*n += 1;
}

static __always_inline __u32 request_dev(struct request *rq)
{
	struct gendisk *disk;

	if (bpf_core_field_exists(rq->q->disk))
		disk = rq->q->disk; /* a BTF pointer: read directly, no helper call */
	else
		disk = BPF_CORE_READ((struct request___old *)rq, rq_disk);
	if (!disk)
		return 0;
	return ((__u32)disk->major << 20) | (__u32)disk->first_minor;
}

static __always_inline bool wanted(__u32 dev)
{
	return !filter_devices || bpf_map_lookup_elem(&devices, &dev);
}

/* floor(log2(v)) for v > 0, without branches (the BPF ISA has no count-leading-zeros). */
static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0, shift;

	shift = (v > 0xFFFFFFFF) << 5; v >>= shift; r |= shift;
	shift = (v > 0xFFFF) << 4; v >>= shift; r |= shift;
	shift = (v > 0xFF) << 3; v >>= shift; r |= shift;
	shift = (v > 0xF) << 2; v >>= shift; r |= shift;
	shift = (v > 0x3) << 1; v >>= shift; r |= shift;
	r |= (v >> 1);
	return r;
}

/* The dense latency bucket of v nanoseconds: 0 below 2^FIRST_OCTAVE, the last above
 * 2^(LAST_OCTAVE + 1), else 8 per octave as in model/histogram.py. */
static __always_inline __u32 lat_bucket(__u64 v)
{
	__u32 e, b;

	if (v < (1ULL << FIRST_OCTAVE))
		return 0;
	e = log2_u64(v);
	if (e > LAST_OCTAVE)
		return LAT_BUCKETS - 1;
	b = 1 + (e - FIRST_OCTAVE) * SUB_BUCKETS + ((v >> (e - SUB_BITS)) & (SUB_BUCKETS - 1));
	return b < LAT_BUCKETS ? b : LAT_BUCKETS - 1; /* for the verifier */
}

/* The raw log-linear bucket of a 32-bit size: v itself below 8, else 8 per octave. */
static __always_inline __u32 size_bucket(__u64 v)
{
	__u64 e, b;

	if (v < SUB_BUCKETS) {
		b = v;
	} else {
		e = log2_u64(v);
		b = (e - SUB_BITS + 1) * SUB_BUCKETS + ((v >> (e - SUB_BITS)) & (SUB_BUCKETS - 1));
	}
	/* for the verifier, on every path (with 32-bit subregisters it cannot tell a 32-bit
	 * size's upper half is zero) */
	return b < SIZE_BUCKETS ? b : SIZE_BUCKETS - 1;
}

/* One more in a counter of an entry: a plain add in this CPU's value, an atomic one in a
 * value every CPU shares. `atomic` is a constant where this is inlined. */
static __always_inline void bump(__u64 *counter, __u64 by, bool atomic)
{
	if (atomic)
		__sync_fetch_and_add(counter, by);
	else
		*counter += by;
}

/* Raise a shared maximum to `value`: compare-and-exchange until no other CPU raised it
 * meanwhile (bounded for the verifier; each retry means another CPU raised it). */
static __always_inline void raise_shared_max(__u64 *max, __u64 value)
{
	__u64 seen = *max, was;

	for (int i = 0; i < 4; i++) {
		if (value <= seen)
			return;
		was = __sync_val_compare_and_swap(max, seen, value);
		if (was == seen)
			return;
		seen = was;
	}
}

static __always_inline void add(struct total *t, __u64 value, bool atomic)
{
	bump(&t->count, 1, atomic);
	bump(&t->sum, value, atomic);
	if (atomic)
		raise_shared_max(&t->max, value);
	else if (value > t->max)
		t->max = value;
}

/* The entry of `key` (NULL when there is no room), `*spilled` set when it is in `spill`. */
static __always_inline struct stats *stats_of(struct stats_key *key, bool *spilled)
{
	struct stats *st = bpf_map_lookup_elem(&stats, key);

	if (st)
		return st;
	*spilled = true;
	st = bpf_map_lookup_elem(&spill, key);
	if (st)
		return st;
	/* The first I/O of this pair: its entry is allocated, or, when the kernel's allocation
	 * cache is empty for a moment or the budget's entries are all taken, taken from the
	 * preallocated spill map. */
	*spilled = false;
	if (!bpf_map_update_elem(&stats, key, &empty, BPF_NOEXIST))
		return bpf_map_lookup_elem(&stats, key);
	st = bpf_map_lookup_elem(&stats, key); /* another CPU made it meanwhile */
	if (st)
		return st;
	*spilled = true;
	bpf_map_update_elem(&spill, key, &empty, BPF_NOEXIST);
	return bpf_map_lookup_elem(&spill, key);
}

/* Count one completed request in its entry: device time, queued and whole time, size. */
static __always_inline void record(struct stats *st, __u64 now, __u64 insert, __u64 issue,
				   __u32 size, bool atomic)
{
	__u64 device = now - issue, whole = device;

	add(&st->totals[KIND_DEVICE], device, atomic);
	bump(&st->lat[LAT_DEVICE][lat_bucket(device)], 1, atomic);
	if (insert && issue > insert) {
		add(&st->totals[KIND_QUEUE], issue - insert, atomic);
		bump(&st->lat[LAT_QUEUE][lat_bucket(issue - insert)], 1, atomic);
		whole = now - insert;
	}
	add(&st->totals[KIND_TOTAL], whole, atomic);
	bump(&st->lat[LAT_TOTAL][lat_bucket(whole)], 1, atomic);
	add(&st->totals[KIND_SIZE], size, atomic);
	bump(&st->size[size_bucket(size)], 1, atomic);
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(on_insert, struct request *rq)
{
	__u64 key = (__u64)rq;
	struct start s = { .insert = bpf_ktime_get_ns() };

	if (filter_devices && !wanted(request_dev(rq)))
		return 0; /* not timed: its completion finds no start */
	if (bpf_map_update_elem(&starts, &key, &s, BPF_ANY))
		dropped(DROP_START_FULL);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(on_issue, struct request *rq)
{
	__u64 key = (__u64)rq, now = bpf_ktime_get_ns();
	struct start s = { .issue = now }, *found;
	long err;

	if (filter_devices && !wanted(request_dev(rq)))
		return 0; /* not timed, nor stamped at insertion */
	/* Most requests are issued directly, without an insertion: one update stamps them. */
	err = bpf_map_update_elem(&starts, &key, &s, BPF_NOEXIST);
	if (!err)
		return 0;
	found = bpf_map_lookup_elem(&starts, &key);
	if (found) {
		/* Issued before and neither completed nor requeued since: that completion never
		 * ran on_complete (docs/ebpf.md, unseen I/Os). Else it was inserted: keep that. */
		if (found->issue)
			dropped(DROP_NO_COMPLETION);
		found->issue = now;
		return 0;
	}
	dropped(DROP_START_FULL); /* no room, or the bucket busy (-EBUSY): either way untimed */
	return 0;
}

/* A requeued request is issued again without a completion between: its issue stamp goes,
 * so that the next issue does not take it for a completion unseen. */
SEC("tp_btf/block_rq_requeue")
int BPF_PROG(on_requeue, struct request *rq)
{
	__u64 key = (__u64)rq;
	struct start *found = bpf_map_lookup_elem(&starts, &key);

	if (found)
		found->issue = 0;
	return 0;
}

/* Whether `rq` was made after every program was attached (its allocation stamp, kept when
 * the queue keeps I/O statistics; without one, assumed so). */
static __always_inline bool made_in_window(struct request *rq)
{
	__u64 made = rq->start_time_ns;

	return !made || made >= window_start;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(on_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	__u64 key = (__u64)rq, now = bpf_ktime_get_ns(), insert, issue;
	struct start *s;
	struct stats_key sk;
	struct stats *st;
	bool spilled = false;
	__u32 size;

	s = bpf_map_lookup_elem(&starts, &key);
	if (!s) {
		/* Begun before the window: not counted. Made in it: lost, and said so. */
		if (window_start && (!filter_devices || wanted(request_dev(rq)))) {
			if (made_in_window(rq))
				dropped(DROP_NO_START);
		}
		return 0;
	}
	insert = s->insert;
	issue = s->issue;
	/* Cleared first, so that an element a failed delete leaves behind stamps nothing. */
	s->insert = 0;
	s->issue = 0;
	bpf_map_delete_elem(&starts, &key); /* s is not read after this: its element is reused */
	if (!issue) {
		dropped(DROP_NO_ISSUE);
		return 0;
	}
	sk.dev = request_dev(rq);
	if (!sk.dev) {
		dropped(DROP_NO_DISK);
		return 0;
	}
	sk.op = rq->cmd_flags & REQ_OP_MASK;
	st = stats_of(&sk, &spilled);
	if (!st) {
		dropped(DROP_HIST_FULL);
		return 0;
	}
	size = rq->__data_len ?: nr_bytes;
	/* Two copies of the counting, each with its adds fixed: the per-CPU layout's entries
	 * take plain adds; the shared layout's and the spill map's (shared in either layout),
	 * atomic ones. */
	if (shared_layout || spilled)
		record(st, now, insert, issue, size, true);
	else
		record(st, now, insert, issue, size, false);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
