/* Shared between the BPF program and its loader: the keys and values of the maps. */
#ifndef PINCHPOINT_BIOLAT_H
#define PINCHPOINT_BIOLAT_H

#define SUB_BITS 3 /* 8 buckets per power of two: the scheme of pinchpoint/model/histogram.py */
#define SUB_BUCKETS (1 << SUB_BITS)
#define MAX_BUCKET ((64 - SUB_BITS) * SUB_BUCKETS + SUB_BUCKETS - 1)

enum kind { KIND_DEVICE = 0, KIND_QUEUE = 1, KIND_SIZE = 2, KIND_TOTAL = 3 };
enum drop { DROP_START_FULL = 0, DROP_HIST_FULL = 1, DROP_NO_DISK = 2, DROP_COUNT = 3 };

struct hist_key {
	__u32 dev;  /* the kernel's internal dev_t: major << 20 | minor */
	__u8 op;    /* REQ_OP_* of the request */
	__u8 kind;  /* enum kind */
	__u16 bucket;
};

struct total_key {
	__u32 dev;
	__u8 op;
	__u8 kind;
	__u16 pad;
};

struct total {
	__u64 count;
	__u64 sum;
	__u64 max;
};

#endif
