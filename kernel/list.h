/* list.h - circular doubly linked lists (the classic intrusive kind). */
#ifndef KERNEL_LIST_H
#define KERNEL_LIST_H

#include "kernel/types.h"

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(n) { &(n), &(n) }
#define LIST_HEAD(n) struct list_head n = LIST_HEAD_INIT(n)

static inline void list_init(struct list_head *h) { h->next = h->prev = h; }
static inline bool list_empty(const struct list_head *h) { return h->next == h; }

static inline void __list_link(struct list_head *n, struct list_head *prev, struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

/* list_add: insert n after h (stack order). list_add_tail: before h (queue order). */
static inline void list_add(struct list_head *n, struct list_head *h) { __list_link(n, h, h->next); }
static inline void list_add_tail(struct list_head *n, struct list_head *h) { __list_link(n, h->prev, h); }

static inline void list_del(struct list_head *n)
{
	n->next->prev = n->prev;
	n->prev->next = n->next;
	n->next = n->prev = NULL;
}

#define list_entry(p, type, member) container_of(p, type, member)
#define list_first_entry(h, type, member) list_entry((h)->next, type, member)
#define list_for_each(p, h) for (p = (h)->next; p != (h); p = p->next)
#define list_for_each_safe(p, n, h) for (p = (h)->next, n = p->next; p != (h); p = n, n = p->next)

#endif
