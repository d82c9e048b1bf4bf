# model.mk - the Promela model of the page cache protocol (tests/model/,
# docs/model.md). Included by the Makefile.
#
#   make model-check   run spin on tests/model/pagecache.pml: the protocol as
#                      written passes an exhaustive search, and each
#                      deliberately broken variant yields a counterexample;
#                      one line "model: NAME ok" (or FAILED) each
#
# MODEL_ARGS='correct plain_get ...' runs only those variants. Needs spin
# (Debian: spin) and gcc. Work files and trails go to build/model/.

.PHONY: model-check
model-check:
	@$(or $(PYTHON),python3) tests/model/run-model $(MODEL_ARGS)
