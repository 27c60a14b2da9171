// SPDX-License-Identifier: GPL-2.0
/*
 * A deliberately broken module for the runner's own tests: on load it
 * either hits WARN_ON(1) (mode=warn) or dereferences NULL (mode=oops),
 * so that the runner must fail the run and show the splat.
 */
#include <linux/bug.h>
#include <linux/module.h>
#include <linux/string.h>

static char *mode = "warn";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "warn: WARN_ON(1); oops: NULL dereference");

static int __init splat_init(void)
{
	if (!strcmp(mode, "oops")) {
		int *volatile p = NULL;

		return *p;
	}
	WARN_ON(1);
	return 0;
}
module_init(splat_init);

static void __exit splat_exit(void)
{
}
module_exit(splat_exit);

MODULE_DESCRIPTION("Broken on purpose: tests the runner's splat detection");
MODULE_LICENSE("GPL");
