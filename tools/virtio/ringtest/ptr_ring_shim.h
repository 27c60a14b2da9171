/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-ins for the kernel primitives include/linux/ptr_ring.h
 * uses, on top of main.h's barriers and READ_ONCE()/WRITE_ONCE().
 */
#ifndef PTR_RING_SHIM_H
#define PTR_RING_SHIM_H

#include "main.h"
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <pthread.h>
#include <malloc.h>
#include <assert.h>
#include <errno.h>
#include <limits.h>

#define SMP_CACHE_BYTES 64
#define cache_line_size() SMP_CACHE_BYTES
#define ____cacheline_aligned_in_smp __attribute__ ((aligned (SMP_CACHE_BYTES)))
#define unlikely(x)    (__builtin_expect(!!(x), 0))
#define likely(x)    (__builtin_expect(!!(x), 1))
#define ALIGN(x, a) (((x) + (a) - 1) / (a) * (a))
#define SIZE_MAX        (~(size_t)0)
/* SLUB's with 4 KiB pages (x86-64, arm64): MAX_PAGE_ORDER + PAGE_SHIFT */
#define KMALLOC_MAX_SIZE (4UL << 20)

typedef pthread_spinlock_t  spinlock_t;

typedef int gfp_t;
#define GFP_KERNEL 0
#define __GFP_ZERO 0x1

/* As the kernel's: a zero-size allocation and poison, as slab debugging's */
#define ZERO_SIZE_PTR ((void *)16)
#define ZERO_OR_NULL_PTR(x) ((unsigned long)(x) <= (unsigned long)ZERO_SIZE_PTR)
#define POISON_INUSE 0x5a

/*
 * Memory allocated without __GFP_ZERO is poisoned rather than whatever
 * malloc() returns, usually zeroes: a ptr_ring.h that loses __GFP_ZERO
 * sees garbage entries, as it would in the kernel.
 */
static inline void *kmalloc(unsigned int size, gfp_t gfp)
{
	void *p;

	if (!size)
		return ZERO_SIZE_PTR;
	p = memalign(64, size);
	if (!p)
		return p;

	memset(p, gfp & __GFP_ZERO ? 0 : POISON_INUSE, size);
	return p;
}

static inline void *kzalloc(unsigned size, gfp_t flags)
{
	return kmalloc(size, flags | __GFP_ZERO);
}

static inline void *kmalloc_array(size_t n, size_t size, gfp_t flags)
{
	if (size != 0 && n > SIZE_MAX / size)
		return NULL;
	return kmalloc(n * size, flags);
}

static inline void *kcalloc(size_t n, size_t size, gfp_t flags)
{
	return kmalloc_array(n, size, flags | __GFP_ZERO);
}

static inline void kfree(void *p)
{
	if (!ZERO_OR_NULL_PTR(p))
		free(p);
}

#define kvmalloc_array kmalloc_array
#define kvfree kfree

/* Since v6.10 ptr_ring.h calls the _noprof allocators via alloc_hooks() */
#define kmalloc_array_noprof kmalloc_array
#define kvmalloc_array_noprof kvmalloc_array
#define alloc_hooks(expr) (expr)

/* Accesses that race by design; KCSAN is not there to tell anyway */
#define data_race(expr) (expr)

static inline void spin_lock_init(spinlock_t *lock)
{
	int r = pthread_spin_init(lock, 0);
	assert(!r);
}

static inline void spin_lock(spinlock_t *lock)
{
	int ret = pthread_spin_lock(lock);
	assert(!ret);
}

static inline void spin_unlock(spinlock_t *lock)
{
	int ret = pthread_spin_unlock(lock);
	assert(!ret);
}

static inline void spin_lock_bh(spinlock_t *lock)
{
	spin_lock(lock);
}

static inline void spin_unlock_bh(spinlock_t *lock)
{
	spin_unlock(lock);
}

static inline void spin_lock_irq(spinlock_t *lock)
{
	spin_lock(lock);
}

static inline void spin_unlock_irq(spinlock_t *lock)
{
	spin_unlock(lock);
}

/* Macros, as the kernel's: spin_lock_irqsave() sets its flags */
#define spin_lock_irqsave(lock, flags) ((flags) = 0, spin_lock(lock))
#define spin_unlock_irqrestore(lock, flags) ((void)(flags), spin_unlock(lock))

/*
 * ThreadSanitizer models neither fences nor volatile accesses, and on x86
 * smp_wmb() is only a compiler barrier, so a missing or misplaced smp_wmb()
 * in ptr_ring.h is invisible to both.  Under ThreadSanitizer, model what
 * ptr_ring.h relies on: READ_ONCE() is an acquire load (the address
 * dependency of the consumer's accesses through the entry it read), and
 * WRITE_ONCE() is a release store when an smp_wmb() came before it on this
 * thread since the last WRITE_ONCE(), a relaxed store otherwise.  A fence
 * orders more than the next store, but publishing one entry after filling
 * it in is all ptr_ring.h uses it for.  data_race() hides the access, as
 * KCSAN's does.
 */
#ifndef __has_feature
#define __has_feature(x) 0
#endif
#if defined(__SANITIZE_THREAD__) || __has_feature(thread_sanitizer)
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);
static __thread bool tsan_wmb_pending;

#undef smp_wmb
#undef READ_ONCE
#undef WRITE_ONCE
#undef data_race
/* smp_wmb(): a compiler barrier, and the next WRITE_ONCE() releases */
#define smp_wmb() do { barrier(); tsan_wmb_pending = true; } while (0)
#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define WRITE_ONCE(x, val) do {						\
	if (tsan_wmb_pending)						\
		__atomic_store_n(&(x), (val), __ATOMIC_RELEASE);	\
	else								\
		__atomic_store_n(&(x), (val), __ATOMIC_RELAXED);	\
	tsan_wmb_pending = false;					\
} while (0)
/* data_race(): the access is not checked, as with KCSAN */
#define data_race(expr) ({						\
	__tsan_ignore_thread_begin();					\
	__auto_type __v = (expr);					\
	__tsan_ignore_thread_end();					\
	__v;								\
})
#endif

#include "../../../include/linux/ptr_ring.h"

#endif /* PTR_RING_SHIM_H */
