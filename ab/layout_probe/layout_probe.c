// SPDX-License-Identifier: GPL-2.0
/* The structs page_pool's paths touch, for pahole (built with -g) */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/ptr_ring.h>
#include <net/netmem.h>
#include <net/page_pool/types.h>

struct page_pool *layout_probe_pool;
struct page_pool_params *layout_probe_params;
struct page *layout_probe_page;
struct netmem_desc *layout_probe_desc;
struct ptr_ring *layout_probe_ring;
struct napi_struct *layout_probe_napi;

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("struct layouts for pahole");
