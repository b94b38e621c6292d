// SPDX-License-Identifier: GPL-2.0
/* pinchpoint's block-layer latency recorder: per device and operation, a log-linear
 * histogram (8 buckets per power of two) of each request's device time (issue to
 * completion), its time queued in the block layer (insert to issue), its whole time in the
 * block layer (insert, or issue when it was not queued, to completion) and its size.
 * Aggregated in kernel maps; user space reads them, nothing is copied per I/O.
 * Raw BTF tracepoints hand over the request itself, so starts are keyed by its address. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "biolat.h"

#define REQ_OP_MASK 0xff

const volatile bool filter_devices = false;

struct start {
	__u64 insert;
	__u64 issue;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct start);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 262144);
	__type(key, struct hist_key);
	__type(value, __u64);
} hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct total_key);
	__type(value, struct total);
} totals SEC(".maps");

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
		disk = BPF_CORE_READ(rq, q, disk);
	else
		disk = BPF_CORE_READ((struct request___old *)rq, rq_disk);
	if (!disk)
		return 0;
	return ((__u32)BPF_CORE_READ(disk, major) << 20) | (__u32)BPF_CORE_READ(disk, first_minor);
}

static __always_inline bool wanted(__u32 dev)
{
	return !filter_devices || bpf_map_lookup_elem(&devices, &dev);
}

/* floor(log2(v)) for v > 0, without loops (the BPF ISA has no count-leading-zeros). */
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

/* The log-linear bucket of v: v itself below 16, else 16 buckets per power of two. */
static __always_inline __u16 bucket_of(__u64 v)
{
	__u32 e;

	if (v < SUB_BUCKETS)
		return v;
	e = log2_u64(v);
	return (e - SUB_BITS + 1) * SUB_BUCKETS + ((v >> (e - SUB_BITS)) & (SUB_BUCKETS - 1));
}

static __always_inline void account(__u32 dev, __u8 op, __u8 kind, __u64 value)
{
	struct hist_key hk = { .dev = dev, .op = op, .kind = kind, .bucket = bucket_of(value) };
	struct total_key tk = { .dev = dev, .op = op, .kind = kind };
	static const __u64 zero;
	static const struct total none;
	struct total *t;
	__u64 *n;

	n = bpf_map_lookup_elem(&hists, &hk);
	if (!n) {
		bpf_map_update_elem(&hists, &hk, &zero, BPF_NOEXIST);
		n = bpf_map_lookup_elem(&hists, &hk);
		if (!n) {
			dropped(DROP_HIST_FULL);
			return;
		}
	}
	*n += 1;
	t = bpf_map_lookup_elem(&totals, &tk);
	if (!t) {
		bpf_map_update_elem(&totals, &tk, &none, BPF_NOEXIST);
		t = bpf_map_lookup_elem(&totals, &tk);
		if (!t) {
			dropped(DROP_HIST_FULL);
			return;
		}
	}
	t->count += 1;
	t->sum += value;
	if (value > t->max)
		t->max = value;
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
	struct start *found = bpf_map_lookup_elem(&starts, &key);
	struct start s = { .issue = now };

	if (found) {
		found->issue = now;
		return 0;
	}
	if (filter_devices && !wanted(request_dev(rq)))
		return 0;
	if (bpf_map_update_elem(&starts, &key, &s, BPF_ANY))
		dropped(DROP_START_FULL);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(on_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	__u64 key = (__u64)rq, now = bpf_ktime_get_ns();
	struct start *s = bpf_map_lookup_elem(&starts, &key);
	__u32 dev;
	__u8 op;

	if (!s)
		return 0; /* issued before the recording started */
	if (!s->issue) {
		bpf_map_delete_elem(&starts, &key);
		return 0;
	}
	dev = request_dev(rq);
	if (!dev) {
		dropped(DROP_NO_DISK);
	} else {
		op = BPF_CORE_READ(rq, cmd_flags) & REQ_OP_MASK;
		account(dev, op, KIND_DEVICE, now - s->issue);
		if (s->insert && s->issue > s->insert) {
			account(dev, op, KIND_QUEUE, s->issue - s->insert);
			account(dev, op, KIND_TOTAL, now - s->insert);
		} else {
			account(dev, op, KIND_TOTAL, now - s->issue);
		}
		account(dev, op, KIND_SIZE, BPF_CORE_READ(rq, __data_len) ?: nr_bytes);
	}
	bpf_map_delete_elem(&starts, &key);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
