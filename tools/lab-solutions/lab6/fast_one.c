	u64 *table = pml4;
	struct page *page;
	pte_t *ptep;
	pte_t pte;

	/* gup.c, step 2: the upper levels, each entry read once. */
	for (int shift = 39; shift > 12; shift -= 9) {
		u64 e = READ_ONCE(table[(addr >> shift) & 511]);
		if (!(e & PTE_P) || !(e & PTE_U) || (e & PTE_PS)) {
			COUNT(fallback_not_present, 1);
			return NULL;
		}
		table = __va(e & PTE_ADDR_MASK);
	}
	ptep = &table[(addr >> 12) & 511];
	pte = READ_ONCE(*ptep);
	if (!(pte & PTE_P)) {
		COUNT(fallback_not_present, 1);
		return NULL;
	}
	if (!pte_pinnable(pte, write, &page)) {
		COUNT(fallback_permission, 1);
		return NULL;
	}
	if (delay_us)
		udelay(delay_us);
	/* gup.c, step 3: interrupts off, so the count cannot be 0. */
	if (!page_cache_get_speculative(page))
		panic("gup_fast: the page at %#lx was freed while this CPU walked with "
		      "interrupts off (the interrupts-off guarantee, mm/gup.c, is broken)", addr);
	/* gup.c, step 4: still the page the address maps? */
	if (READ_ONCE(*ptep) != pte) {
		put_page(page);
		COUNT(fallback_changed, 1);
		return NULL;
	}
	return page;
