/* Shared between the BPF program and its loader: the keys and values of the maps. */
#ifndef PINCHPOINT_BIOLAT_H
#define PINCHPOINT_BIOLAT_H

#define SUB_BITS 3 /* 8 buckets per power of two: the scheme of pinchpoint/model/histogram.py */
#define SUB_BUCKETS (1 << SUB_BITS)
/* The raw log-linear index of a 64-bit value (what the loader prints, parse/biolat.py reads). */
#define MAX_BUCKET ((64 - SUB_BITS) * SUB_BUCKETS + SUB_BUCKETS - 1)

/* Latencies are kept densely over the octaves of model/histogram.py (2^10 ns .. 2^38 ns),
 * plus one bucket below and one above: a bucket's index is computed, never looked up. */
#define FIRST_OCTAVE 10
#define LAST_OCTAVE 37
#define LAT_BUCKETS (2 + (LAST_OCTAVE - FIRST_OCTAVE + 1) * SUB_BUCKETS)
/* Sizes (32-bit byte counts) keep the raw index: every octave up to 2^32. */
#define SIZE_BUCKETS ((32 - SUB_BITS) * SUB_BUCKETS + SUB_BUCKETS)

enum kind { KIND_DEVICE = 0, KIND_QUEUE = 1, KIND_SIZE = 2, KIND_TOTAL = 3, KIND_COUNT = 4 };
enum lat { LAT_DEVICE = 0, LAT_QUEUE = 1, LAT_TOTAL = 2, LAT_COUNT = 3 };
/* Why a completion went uncounted (biolat.bpf.c): no room for its start stamp, nor for its
 * entry; no disk on the request; no start stamp for a request made in the window; a start
 * stamp without an issue stamp; an issue finding the request's previous issue stamp (its
 * completion never seen), to which the loader adds start stamps left too long (biolat.c). */
enum drop {
	DROP_START_FULL = 0,
	DROP_HIST_FULL = 1,
	DROP_NO_DISK = 2,
	DROP_NO_START = 3,
	DROP_NO_ISSUE = 4,
	DROP_NO_COMPLETION = 5,
	DROP_COUNT = 6,
};

/* Entries the program may take when it cannot allocate one (biolat.bpf.c, spill). */
#define SPILL_ENTRIES 64

/* One entry per (device, operation) seen: the per-CPU value holds all its histograms. */
struct stats_key {
	__u32 dev; /* the kernel's internal dev_t: major << 20 | minor */
	__u32 op;  /* REQ_OP_* of the request */
};

struct total {
	__u64 count;
	__u64 sum;
	__u64 max;
};

struct stats {
	struct total totals[KIND_COUNT]; /* indexed by enum kind */
	__u64 lat[LAT_COUNT][LAT_BUCKETS];
	__u64 size[SIZE_BUCKETS];
};

#endif
