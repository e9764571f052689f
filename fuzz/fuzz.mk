# fuzz/fuzz.mk - libFuzzer harnesses for rladv; the Makefile includes it.
#
#   make fuzz-replay  run each harness once on every file of its committed
#                     corpus, fuzz/corpus/record and fuzz/corpus/filter,
#                     built with $(CC) and fuzz/replay.c instead of
#                     libFuzzer (make check does; sanitized under SANITIZE=1)
#   make fuzz-build   build build/fuzz/fuzz_record and build/fuzz/fuzz_filter
#                     (clang, -fsanitize=fuzzer,address,undefined, every
#                     src/*.c but main.c compiled into build/fuzz/obj; make
#                     deps-fuzz installs clang)
#   make fuzz-corpus  seed build/fuzz/seed/* from samples/*.jsonl and
#                     tests/conformance/*.in.jsonl*
#   make fuzz-check   each harness for FUZZ_TIME seconds (default 60), one
#                     after the other, from the committed corpus, the seeds
#                     and what earlier runs found; fails when either finds a
#                     crash (.ci/run does)
#   make fuzz         both harnesses at once for FUZZ_TIME seconds each,
#                     logs in build/fuzz/log-*.txt; fails on a crash
#   make fuzz-merge   add to fuzz/corpus/NAME the inputs of the seeds and of
#                     build/fuzz/corpus/NAME that reach code (edges, not hit
#                     counts, to keep it small) it does not: libFuzzer's
#                     -merge=1; commit what it adds
#
# Crash reproducers go to build/fuzz/artifacts/; replay one with
#   build/fuzz/fuzz_record build/fuzz/artifacts/record-crash-...
# New inputs found go to build/fuzz/corpus/NAME (kept between runs).
# FUZZ_ARGS adds libFuzzer flags, e.g. FUZZ_ARGS='-fork=2 -ignore_crashes=1'.

# Including this file must not change the Makefile's default goal.
FUZZ_SAVED_GOAL := $(.DEFAULT_GOAL)

FUZZ_CC		?= clang
FUZZ_TIME	?= 60
FUZZ_DIR	?= build/fuzz
FUZZ_CONF	?= tests/conformance
FUZZ_ARGS	?=
# $(call FUZZ_RUN,NAME): the command line that runs harness NAME (a name
# or a shell variable) for FUZZ_TIME seconds.
FUZZ_RUN	 = $(FUZZ_DIR)/fuzz_$(1) -print_final_stats=1 -timeout=30 \
		   -rss_limit_mb=2560 -close_fd_mask=2 \
		   -dict=$(FUZZ_DIR)/json.dict \
		   -artifact_prefix=$(FUZZ_DIR)/artifacts/$(1)- \
		   -max_total_time=$(FUZZ_TIME) $(FUZZ_ARGS) \
		   $(FUZZ_DIR)/corpus/$(1) fuzz/corpus/$(1) $(FUZZ_DIR)/seed/$(1)

FUZZ_SANFLAGS	 = -fsanitize=address,undefined \
		   -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CPPFLAGS	 = -D_GNU_SOURCE -DRLADV_VERSION='"fuzz"' -Isrc \
		   $(shell pkg-config --cflags libcjson zlib 2>/dev/null)
FUZZ_CFLAGS	 = -std=c11 -g -O1 -Wall -Wextra -Wno-sign-compare
FUZZ_LIBS	 = $(shell pkg-config --libs libcjson zlib 2>/dev/null || \
		   echo -lz) -lm -lpthread

FUZZ_SRCS	 = $(filter-out src/main.c,$(wildcard src/*.c))
FUZZ_OBJS	 = $(FUZZ_SRCS:src/%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_NAMES	 = record filter
FUZZ_BINS	 = $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz_%)

# Seed inputs: whole files for the filter, single lines for the record
# parser.
FUZZ_DUMPS	 = verl_rollout_dump verl_agent_loop trl_completions_00005 \
		   openrlhf_agent nemo_rl_train_data_step3 slime_rollout_data_4 \
		   areal_dump_v12 roll_rollout_dump_data.step_3 \
		   skyrl_generator_output verifiers_results
FUZZ_SEED_SRC	 = $(wildcard samples/*.jsonl) \
		   $(wildcard $(FUZZ_CONF)/*.in.jsonl) \
		   $(wildcard $(FUZZ_CONF)/*.in.jsonl.gz)

.PHONY: fuzz fuzz-build fuzz-check fuzz-corpus fuzz-clean fuzz-replay \
	fuzz-merge need-fuzz

# The replay binaries: the harnesses with a main() of their own, linked
# with the objects of the build at hand.
REPLAY_DIR	 = $(BUILD)/replay
REPLAY_BINS	 = $(FUZZ_NAMES:%=$(REPLAY_DIR)/replay_%)
REPLAY_OBJS	 = $(FUZZ_NAMES:%=$(REPLAY_DIR)/fuzz_%.o) $(REPLAY_DIR)/replay.o
.SECONDARY: $(REPLAY_OBJS)

$(REPLAY_DIR)/%.o: fuzz/%.c | $(NEED_BUILD)
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(REPLAY_DIR)/replay_%: $(REPLAY_DIR)/fuzz_%.o $(REPLAY_DIR)/replay.o \
    $(LIBOBJS) $(CUOBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

fuzz-replay: $(REPLAY_BINS)
	@for n in $(FUZZ_NAMES); do \
	    $(REPLAY_DIR)/replay_$$n fuzz_$$n fuzz/corpus/$$n || exit 1; \
	done

need-fuzz:
	@sh scripts/deps.sh -n fuzz

fuzz-build: $(FUZZ_BINS)

$(FUZZ_OBJS): $(FUZZ_DIR)/obj/%.o: src/%.c | need-fuzz
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) $(FUZZ_SANFLAGS) \
	    -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

$(FUZZ_DIR)/fuzz_%: fuzz/fuzz_%.c $(FUZZ_OBJS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) $(FUZZ_SANFLAGS) \
	    -fsanitize=fuzzer -MMD -MP -o $@ $< $(FUZZ_OBJS) $(FUZZ_LIBS)

# Tokens libFuzzer splices into inputs: JSON syntax, the field names rladv
# reads and writes, the literals Python writes for non-finite floats.
define FUZZ_DICT
"{"
"}"
"[]"
"{}"
"[["
"]]"
","
":"
"\x22\x22"
"true"
"false"
"null"
"NaN"
"Infinity"
"-Infinity"
"1e999"
"-1e400"
"1.7976931348623157e308"
"1e-400"
"-0"
"0.5"
"18446744073709551617"
"\x5cu0000"
"\x5cud800"
"\x5cudc00"
"\xc3\xa9"
"\xed\xa0\x80"
"\xf4\x90\x80\x80"
"\x00"
"\x0d\x0a"
"\x1f\x8b"
"\x22prompt_id\x22:"
"\x22uid\x22:"
"\x22group_id\x22:"
"\x22group_index\x22:"
"\x22reward\x22:"
"\x22score\x22:"
"\x22logprobs\x22:"
"\x22rollout_log_probs\x22:"
"\x22mask\x22:"
"\x22response_mask\x22:"
"\x22loss_mask\x22:"
"\x22tool_calls\x22:"
"\x22search_ok\x22:"
"\x22step\x22:"
"\x22lp\x22:"
"\x22m\x22:"
"\x22advantage\x22:"
"\x22token_advantages\x22:"
"\x22loss_weight\x22:"
"\x22token_loss_weights\x22:"
"\x22rladv\x22:"
"\x22reward_score\x22:"
"\x22response_ids\x22:"
"\x22trajectory_ids\x22:"
"\x22instance_id\x22:"
"\x22is_last_step\x22:"
"\x22traj\x22:"
"\x22last\x22:"
"\x22spans\x22:"
"\x22pl\x22:"
"\x22sm\x22:"
"\x22n\x22:"
"\x22g\x22:"
"\x22r\x22:"
"\x22f\x22:"
"[[0, 2]]"
"1.0"
"0.0"
endef

$(FUZZ_DIR)/json.dict: fuzz/fuzz.mk
	@: $(shell mkdir -p $(@D))$(file >$@,$(FUZZ_DICT))
	@test -s $@

# One file per line for the record harness (as is, and behind a byte that
# picks variant B's configuration); files cut into chunks of 24 lines
# behind three option bytes for the filter harness; gzip inputs whole.
# The frameworks' samples whole behind the option bytes of their --from
# profile for the filter harness (FUZZ_DUMPS in fuzz_filter.c's order),
# and their lines behind two bytes of variant C's for the record harness.
$(FUZZ_DIR)/seed/.stamp: $(FUZZ_SEED_SRC) fuzz/fuzz.mk
	@rm -rf $(FUZZ_DIR)/seed
	@mkdir -p $(FUZZ_DIR)/seed/record $(FUZZ_DIR)/seed/filter
	@set -e; n=0; \
	for f in $(FUZZ_SEED_SRC); do \
	    n=$$((n + 1)); \
	    case $$f in \
	    *.gz) \
		gzip -dc "$$f" 2>/dev/null | awk -v d=$(FUZZ_DIR)/seed/record \
		    -v t=z$$n '{ o = d "/" t "-" NR; printf "%s", $$0 > o; \
		    close(o) }' || true; \
		{ printf '\000\000\000'; cat "$$f"; } \
		    > $(FUZZ_DIR)/seed/filter/z$$n-a; \
		{ printf '\200\000\000'; cat "$$f"; } \
		    > $(FUZZ_DIR)/seed/filter/z$$n-b; \
		continue;; \
	    esac; \
	    awk -v d=$(FUZZ_DIR)/seed/record -v t=p$$n '{ \
		o = d "/" t "-" NR; printf "%s", $$0 > o; close(o); \
		o = d "/" t "-" NR "b"; \
		printf "%c%s", 33 + (NR * 37) % 94, $$0 > o; close(o) }' \
		"$$f"; \
	    awk -v d=$(FUZZ_DIR)/seed/filter -v t=p$$n '{ \
		c = int((NR - 1) / 24); o = d "/" t "-" c; \
		print > o; if (NR % 24 == 0) close(o) }' "$$f"; \
	    for c in $(FUZZ_DIR)/seed/filter/p$$n-*; do \
		i=$${c##*-}; \
		case $$((i % 4)) in \
		0) p='\000\000\000';; 1) p='\204\000\004';; \
		2) p='\015\001\040';; *) p='\262\202\002';; \
		esac; \
		{ printf "$$p"; cat "$$c"; } > "$$c-x"; \
		{ printf '\200\000\000'; cat "$$c"; } > "$$c-s"; \
		rm -f "$$c"; \
	    done; \
	done; \
	i=0; for p in $(FUZZ_DUMPS); do \
	    o=$$(printf '%03o' $$i); \
	    { printf "\\000\\000\\200\\$$o\\000"; cat samples/$$p.jsonl; } \
		> $(FUZZ_DIR)/seed/filter/dump-$$i; \
	    awk -v d=$(FUZZ_DIR)/seed/record -v t=dump$$i '{ \
		o = d "/" t "-" NR; printf "%c%c%s", 33 + NR % 94, \
		    33 + (NR * 7) % 94, $$0 > o; close(o) }' samples/$$p.jsonl; \
	    i=$$((i + 1)); \
	done
	@touch $@
	@echo "fuzz: seeded $$(ls $(FUZZ_DIR)/seed/record | wc -l) record" \
	    "and $$(ls $(FUZZ_DIR)/seed/filter | wc -l) filter inputs" \
	    "in $(FUZZ_DIR)/seed"

fuzz-corpus: $(FUZZ_DIR)/seed/.stamp

fuzz-check: fuzz-build fuzz-corpus $(FUZZ_DIR)/json.dict
	@mkdir -p $(FUZZ_DIR)/artifacts; st=0; \
	for n in $(FUZZ_NAMES); do \
	    mkdir -p $(FUZZ_DIR)/corpus/$$n; \
	    echo "fuzz-check: fuzz_$$n for $(FUZZ_TIME) s"; \
	    $(call FUZZ_RUN,$$n) || { st=1; \
		echo "fuzz-check: fuzz_$$n FAILED; reproducer in" \
		    "$(FUZZ_DIR)/artifacts/"; }; \
	done; exit $$st

fuzz: fuzz-build fuzz-corpus $(FUZZ_DIR)/json.dict
	@mkdir -p $(FUZZ_DIR)/artifacts; st=0; pids=; \
	for n in $(FUZZ_NAMES); do \
	    mkdir -p $(FUZZ_DIR)/corpus/$$n; \
	    echo "fuzz: fuzz_$$n for $(FUZZ_TIME) s," \
		"log in $(FUZZ_DIR)/log-$$n.txt"; \
	    $(call FUZZ_RUN,$$n) > $(FUZZ_DIR)/log-$$n.txt 2>&1 & \
	    pids="$$pids $$!"; \
	done; \
	for p in $$pids; do wait $$p || st=1; done; \
	for n in $(FUZZ_NAMES); do \
	    echo "== fuzz_$$n"; \
	    grep -E 'stat::number_of_executed_units|Done [0-9]+ runs|ERROR|SUMMARY|Test unit written' \
		$(FUZZ_DIR)/log-$$n.txt || true; \
	done; \
	if [ $$st -ne 0 ]; then echo "fuzz: a harness FAILED"; fi; \
	exit $$st

fuzz-merge: fuzz-build fuzz-corpus
	@for n in $(FUZZ_NAMES); do \
	    mkdir -p $(FUZZ_DIR)/corpus/$$n; \
	    before=$$(ls fuzz/corpus/$$n | wc -l); \
	    $(FUZZ_DIR)/fuzz_$$n -merge=1 -use_counters=0 -close_fd_mask=2 \
		-timeout=30 -rss_limit_mb=2560 fuzz/corpus/$$n \
		$(FUZZ_DIR)/corpus/$$n $(FUZZ_DIR)/seed/$$n \
		> $(FUZZ_DIR)/merge-$$n.txt 2>&1 || \
		{ cat $(FUZZ_DIR)/merge-$$n.txt; exit 1; }; \
	    echo "fuzz-merge: fuzz/corpus/$$n: $$before ->" \
		"$$(ls fuzz/corpus/$$n | wc -l) inputs"; \
	done

fuzz-clean:
	rm -rf $(FUZZ_DIR)

-include $(FUZZ_OBJS:.o=.d) $(FUZZ_BINS:=.d) $(REPLAY_OBJS:.o=.d)

.DEFAULT_GOAL := $(FUZZ_SAVED_GOAL)
