#!/bin/sh
# errors.sh RLADV - end-to-end tests of bad input (SPEC section 6).
#
# Every kind of bad input must give exit status 1 and ONE line on stderr,
# "rladv: FILE:LINE: ..." naming the file, the line and (where there is one)
# the field; never a crash, a hang or a wrong number; and no record on
# standard output when the first batch fails.  Then "nothing lost": with
# --on-error skip and --rejects, every bad line lands in the rejects file
# byte for byte, a group left incomplete under --group-size is rejected
# whole, and the summary's counts add up (in = out + rejected).
#
# POSIX sh; needs awk, cmp, gzip, head, tr; timeout(1) when present turns
# a hang into a failure.  Last line: "N passed, M failed"; exit 1 on any
# failure.
rladv=${1:-./rladv}
case $rladv in
/*) ;;
*) rladv=$(pwd)/$rladv ;;
esac
if [ ! -x "$rladv" ]; then
	echo "errors.sh: $rladv: not an executable" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rladv-errors.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
cd "$tmp" || exit 3
pass=0 fail=0
TO=
command -v timeout >/dev/null 2>&1 && TO="timeout 60"

ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL $1: $2"; }

# run ARGS...: rladv with stdout in out, stderr in err, status in st.
run() {
	$TO "$rladv" "$@" >out 2>err
	st=$?
}
# run_in FILE ARGS...: the same with standard input from FILE.
run_in() {
	f=$1
	shift
	$TO "$rladv" "$@" <"$f" >out 2>err
	st=$?
}

# data_error NAME FILE LINE TEXTS: after run/run_in, checks the result of
# a bad input: status 1, one line on stderr that begins with
# "rladv: FILE:LINE: " and contains each of TEXTS (separated by '|'), and
# nothing on stdout, or where the batches before the error were whole,
# exactly the file $before: their records, as a run on their lines alone
# writes them.
data_error() {
	name=$1 file=$2 line=$3 texts=$4
	if [ "$st" -eq 124 ]; then
		no "$name" "hung (killed after 60 s)"
		return
	fi
	if [ "$st" -gt 128 ]; then
		no "$name" "killed by signal $((st - 128))"
		return
	fi
	if [ "$st" -ne 1 ]; then
		no "$name" "exit status $st, expected 1; stderr: $(head -c 300 err)"
		return
	fi
	n=$(wc -l <err | tr -d ' ')
	if [ "$n" -ne 1 ]; then
		no "$name" "$n lines on stderr, expected 1: $(head -c 300 err)"
		return
	fi
	msg=$(cat err)
	case $msg in
	"rladv: $file:$line: "?*) ;;
	*)
		no "$name" "message does not begin with \"rladv: $file:$line: \": $msg"
		return
		;;
	esac
	# The texts are looked for after the prefix (file names here often
	# contain the field's name).
	rest=${msg#"rladv: $file:$line: "}
	old_ifs=$IFS
	IFS='|'
	for t in $texts; do
		case $rest in
		*"$t"*) ;;
		*)
			IFS=$old_ifs
			no "$name" "message does not name \"$t\": $msg"
			return
			;;
		esac
	done
	IFS=$old_ifs
	if [ -n "$before" ]; then
		if ! cmp -s out "$before"; then
			no "$name" "stdout is not the records of the batches before the error"
			return
		fi
	elif [ -s out ]; then
		no "$name" "records on stdout although the first batch failed"
		return
	fi
	ok
}
before=

# bad NAME TEXTS LINE2 [OPTIONS...]: a file whose first line is good and
# whose second line is LINE2 (written with printf %b, so \000-style escapes
# work); the error must be on line 2 and name TEXTS.
G='{"prompt_id":"a","reward":1,"logprobs":[-0.5,-0.25]}'
bad() {
	name=$1 texts=$2 l2=$3
	shift 3
	{ printf '%s\n' "$G"; printf '%b\n' "$l2"; } >"$name.jsonl"
	run "$@" "$name.jsonl"
	data_error "$name" "$name.jsonl" 2 "$texts"
}

# --- Syntax ---------------------------------------------------------------
bad invalid_json 'invalid JSON' '{"prompt_id":"a","reward":1,'
bad missing_value 'invalid JSON' '{"prompt_id":"a","reward":,"logprobs":[-0.5]}'
bad not_object_array 'object' '[1,2,3]'
bad not_object_string 'object' '"hello"'
bad not_object_number 'object' '42'
bad not_object_null 'object' 'null'
bad not_json_text 'object' 'hello world'
bad trailing_garbage 'invalid JSON' "$G x"
bad trailing_comma 'invalid JSON' '{"prompt_id":"a","reward":1,"logprobs":[-0.5],}'
bad two_objects 'invalid JSON' "$G$G"
bad two_objects_space 'invalid JSON' "$G $G"
bad unterminated_string 'invalid JSON' '{"prompt_id":"a,"reward":1,"logprobs":[-0.5]}'
bad unterminated_at_eol 'invalid JSON' '{"prompt_id":"a","reward":1,"logprobs":[-0.5],"x":"abc'
bad unclosed_object 'invalid JSON' '{"prompt_id":"a","reward":1,"logprobs":[-0.5]'
bad single_quotes 'invalid JSON' "{'prompt_id':'a','reward':1,'logprobs':[-0.5]}"
bad nul_in_string 'invalid JSON' '{"prompt_id":"a\0000b","reward":1,"logprobs":[-0.5]}'
bad nul_after_object 'invalid JSON' "$G\\0000"
bad nul_in_key 'invalid JSON' '{"rew\0000ard":1,"prompt_id":"a","reward":1,"logprobs":[-0.5]}'
bad control_char_in_string 'invalid JSON' '{"prompt_id":"a\tb","reward":1,"logprobs":[-0.5]}'
bad bad_escape 'invalid JSON' '{"prompt_id":"a\\xb","reward":1,"logprobs":[-0.5]}'
bad bad_unicode_escape 'invalid JSON' '{"prompt_id":"a\\u12g4","reward":1,"logprobs":[-0.5]}'
bad invalid_utf8 'UTF-8' '{"prompt_id":"a\0377b","reward":1,"logprobs":[-0.5]}'
bad overlong_utf8 'UTF-8' '{"prompt_id":"a\0300\0257","reward":1,"logprobs":[-0.5]}'
bad surrogate_utf8 'UTF-8' '{"prompt_id":"a\0355\0240\0200","reward":1,"logprobs":[-0.5]}'
bad leading_zero 'invalid JSON' '{"prompt_id":"a","reward":01,"logprobs":[-0.5]}'
bad plus_sign 'invalid JSON' '{"prompt_id":"a","reward":+1,"logprobs":[-0.5]}'
bad bare_dot 'invalid JSON' '{"prompt_id":"a","reward":1.,"logprobs":[-0.5]}'
bad hex_number 'invalid JSON' '{"prompt_id":"a","reward":0x10,"logprobs":[-0.5]}'
bad bad_literal 'invalid JSON' '{"prompt_id":"a","reward":1,"logprobs":[-0.5],"ok":tru}'
bad python_true 'invalid JSON' '{"prompt_id":"a","reward":1,"logprobs":[-0.5],"ok":True}'
bad python_none 'invalid JSON' '{"prompt_id":"a","reward":1,"logprobs":[-0.5],"x":None}'
# A UTF-8 byte-order mark is named as such (a file saved by a Windows
# editor has one on line 1; files put together, on a later line).
bad bom_line 'the line starts with a UTF-8 byte-order mark (U+FEFF), which JSON does not allow; remove it' "\0357\0273\0277$G"
printf '\357\273\277%s\n' "$G" >bom1.jsonl
run bom1.jsonl
data_error bom_first_line bom1.jsonl 1 'byte-order mark (U+FEFF)'

# Nesting deep enough to exhaust a recursive parser.
deep() { head -c 100000 /dev/zero | tr '\0' "$1"; }
{ printf '%s\n' "$G"; deep '['; printf '\n'; } >deep_line.jsonl
run deep_line.jsonl
data_error deep_line deep_line.jsonl 2 ''
{ printf '%s\n' "$G"; printf '{"prompt_id":"a","reward":1,"logprobs":[-0.5],"x":'
  deep '['; deep ']'; printf '}\n'; } >deep_value.jsonl
run deep_value.jsonl
data_error deep_value deep_value.jsonl 2 'invalid JSON'
{ printf '%s\n' "$G"; printf '{"prompt_id":"a","reward":1,"logprobs":[-0.5],"x":'
  head -c 50000 /dev/zero | tr '\0' '#' | sed 's/#/{"a":/g'; printf '1'
  deep '}' | head -c 50000; printf '}\n'; } >deep_objects.jsonl
run deep_objects.jsonl
data_error deep_objects deep_objects.jsonl 2 'invalid JSON'
{ printf '%s\n' "$G"; printf '{"prompt_id":"a","reward":1,"logprobs":'
  deep '['; printf '\n'; } >deep_unclosed.jsonl
run deep_unclosed.jsonl
data_error deep_unclosed deep_unclosed.jsonl 2 'invalid JSON'
# ... but ordinary depth is fine: 400 levels inside a passed-through field.
{ printf '{"prompt_id":"a","reward":1,"logprobs":[-0.5],"x":'
  head -c 400 /dev/zero | tr '\0' '['; head -c 400 /dev/zero | tr '\0' ']'
  printf '}\n'; } >deep_ok.jsonl
run deep_ok.jsonl
if [ "$st" -eq 0 ] && [ "$(wc -l <out)" -eq 1 ]; then ok; else
	no deep_ok "400 nested arrays refused: status $st: $(head -c 200 err)"; fi
# Empty containers in passed-through fields are valid; "[]]" is not.
printf '%s\n' '{"prompt_id":"a","reward":1,"logprobs":[-0.5],"x":[],"y":{},"z":[[],{}]}' >empty_ok.jsonl
run empty_ok.jsonl
if [ "$st" -eq 0 ] && [ "$(wc -l <out)" -eq 1 ]; then ok; else
	no empty_containers_ok "status $st: $(head -c 200 err)"; fi
bad extra_bracket 'invalid JSON' '{"prompt_id":"a","reward":1,"logprobs":[-0.5],"x":[]]}'
bad extra_brace 'invalid JSON' '{"prompt_id":"a","reward":1,"logprobs":[-0.5],"x":{}}}'

# --- Non-finite numbers (NaN and Infinity as Python's json.dumps writes
# them, and numbers that overflow a double) --------------------------------
bad nan_reward 'reward' '{"prompt_id":"a","reward":NaN,"logprobs":[-0.5]}'
bad infinity_reward 'reward' '{"prompt_id":"a","reward":Infinity,"logprobs":[-0.5]}'
bad neg_infinity_reward 'reward' '{"prompt_id":"a","reward":-Infinity,"logprobs":[-0.5]}'
bad nan_logprob 'logprobs' '{"prompt_id":"a","reward":1,"logprobs":[-0.5,NaN]}'
bad neg_infinity_logprob 'logprobs' '{"prompt_id":"a","reward":1,"logprobs":[-Infinity,-0.5]}'
bad nan_mask 'mask' '{"prompt_id":"a","reward":1,"logprobs":[-0.5],"mask":[NaN]}'
bad overflow_reward 'reward' '{"prompt_id":"a","reward":1e999,"logprobs":[-0.5]}'
bad overflow_reward_neg 'reward' '{"prompt_id":"a","reward":-2e308,"logprobs":[-0.5]}'
bad overflow_reward_digits 'reward' "{\"prompt_id\":\"a\",\"reward\":1$(head -c 400 /dev/zero | tr '\0' 0),\"logprobs\":[-0.5]}"
bad overflow_logprob 'logprobs' '{"prompt_id":"a","reward":1,"logprobs":[-0.5,-1e400]}'
bad overflow_logprob_exp 'logprobs' '{"prompt_id":"a","reward":1,"logprobs":[-0.5,1E+99999999999999999999]}'
# C's printf writes nan and -inf; a word that only starts like one is a
# bad number, not NaN.
bad c_nan_logprob 'logprobs|NaN or Infinity' '{"prompt_id":"a","reward":1,"logprobs":[-0.5,-nan]}'
bad c_inf_reward 'reward|NaN and Infinity are not JSON' '{"prompt_id":"a","reward":-inf,"logprobs":[-0.5]}'
bad cut_infinity 'logprobs|bad number' '{"prompt_id":"a","reward":1,"logprobs":[-0.5,-In]}'
# TRL's reward functions summed: each a double, their sum not.
printf '%s\n' '{"prompt_id":"a","correctness":1,"format":0,"logprobs":[-0.5]}' \
    '{"prompt_id":"a","correctness":1e308,"format":1e308,"logprobs":[-0.5]}' \
    >overflow_reward_sum.jsonl
run --reward-key correctness,format overflow_reward_sum.jsonl
data_error overflow_reward_sum overflow_reward_sum.jsonl 2 \
    'weighted sum of the reward fields overflows'

# --- Missing or mistyped fields -------------------------------------------
bad missing_reward 'reward' '{"prompt_id":"a","logprobs":[-0.5]}'
bad missing_logprobs 'logprobs' '{"prompt_id":"a","reward":1}'
bad reward_string 'reward|string' '{"prompt_id":"a","reward":"1","logprobs":[-0.5]}'
bad reward_null 'reward|null' '{"prompt_id":"a","reward":null,"logprobs":[-0.5]}'
bad reward_true 'reward|boolean' '{"prompt_id":"a","reward":true,"logprobs":[-0.5]}'
bad reward_array 'reward|element 1' '{"prompt_id":"a","reward":[1,"x"],"logprobs":[-0.5]}'
bad reward_object 'reward' '{"prompt_id":"a","reward":{"v":1},"logprobs":[-0.5]}'
bad score_string 'score' '{"prompt_id":"a","score":"high","logprobs":[-0.5]}'
bad logprobs_number 'logprobs' '{"prompt_id":"a","reward":1,"logprobs":-0.5}'
bad logprobs_null 'logprobs' '{"prompt_id":"a","reward":1,"logprobs":null}'
bad logprobs_string_elem 'logprobs' '{"prompt_id":"a","reward":1,"logprobs":[-0.5,"x"]}'
bad logprobs_null_elem 'logprobs' '{"prompt_id":"a","reward":1,"logprobs":[-0.5,null]}'
bad logprobs_bool_elem 'logprobs' '{"prompt_id":"a","reward":1,"logprobs":[true]}'
bad logprobs_nested 'logprobs' '{"prompt_id":"a","reward":1,"logprobs":[[-0.5]]}'
bad duplicate_reward 'reward' '{"prompt_id":"a","reward":1,"reward":0,"logprobs":[-0.5]}'

# --- Masks ----------------------------------------------------------------
bad mask_too_long 'mask' '{"prompt_id":"a","reward":1,"logprobs":[-0.5],"mask":[1,1]}'
bad mask_too_short 'mask' '{"prompt_id":"a","reward":1,"logprobs":[-0.5,-0.5],"mask":[1]}'
bad mask_value_2 'mask' '{"prompt_id":"a","reward":1,"logprobs":[-0.5],"mask":[2]}'
bad mask_value_frac 'mask' '{"prompt_id":"a","reward":1,"logprobs":[-0.5],"mask":[0.5]}'
bad mask_value_neg 'mask' '{"prompt_id":"a","reward":1,"logprobs":[-0.5],"mask":[-1]}'
bad mask_value_null 'mask' '{"prompt_id":"a","reward":1,"logprobs":[-0.5],"mask":[null]}'
bad mask_value_string 'mask' '{"prompt_id":"a","reward":1,"logprobs":[-0.5],"mask":["1"]}'
bad mask_not_array 'mask' '{"prompt_id":"a","reward":1,"logprobs":[-0.5],"mask":"1"}'
bad loss_mask_alias 'loss_mask' '{"prompt_id":"a","reward":1,"logprobs":[-0.5],"loss_mask":[1,0]}'

# --- Group keys -----------------------------------------------------------
bad group_key_empty 'prompt_id' '{"prompt_id":"","reward":1,"logprobs":[-0.5]}'
bad group_key_object 'prompt_id' '{"prompt_id":{"id":1},"reward":1,"logprobs":[-0.5]}'
bad group_key_empty_object 'prompt_id' '{"prompt_id":{},"reward":1,"logprobs":[-0.5]}'
bad group_key_array 'prompt_id' '{"prompt_id":[1],"reward":1,"logprobs":[-0.5]}'
bad group_key_float 'prompt_id' '{"prompt_id":1.5,"reward":1,"logprobs":[-0.5]}'
bad group_key_exponent 'prompt_id' '{"prompt_id":1e3,"reward":1,"logprobs":[-0.5]}'
bad group_key_null 'prompt_id' '{"prompt_id":null,"reward":1,"logprobs":[-0.5]}'
bad group_key_bool 'prompt_id' '{"prompt_id":true,"reward":1,"logprobs":[-0.5]}'
printf '%s\n%s\n' '{"uid":"u","reward":1,"logprobs":[-0.5]}' '{"uid":"","reward":1,"logprobs":[-0.5]}' >uid_empty.jsonl
run --group-key uid uid_empty.jsonl
data_error uid_empty uid_empty.jsonl 2 'uid'

# No group key at all (and no --group-size): the message says what to do.
bad no_group_key 'prompt_id|--group-key' '{"reward":1,"logprobs":[-0.5]}'
# ... also when groups stream (--scope group) or batches close every N
# groups, where a record without a key after keyed ones is checked first.
bad no_group_key_streaming 'prompt_id' '{"reward":1,"logprobs":[-0.5]}' --scope group
bad no_group_key_batch_groups 'prompt_id' '{"reward":1,"logprobs":[-0.5]}' --batch-groups 1
bad stats_no_group_key 'prompt_id' '{"reward":1,"logprobs":[-0.5]}' stats
bad stats_nan_reward 'reward' '{"prompt_id":"a","reward":NaN,"logprobs":[-0.5]}' stats

# A group that comes back after its group ended: the error is on the line
# where it comes back and names the lines of the earlier run.
printf '%s\n%s\n%s\n%s\n' "$G" "$G" '{"prompt_id":"b","reward":1,"logprobs":[-0.5]}' "$G" >reappear.jsonl
run reappear.jsonl
data_error group_reappears reappear.jsonl 4 '"a"|1-2'
# A group of one line is at "line N", not "lines N-N".
printf '%s\n%s\n%s\n' "$G" '{"prompt_id":"b","reward":1,"logprobs":[-0.5]}' "$G" >reappear1.jsonl
# Its batches of one group, lines 1 and 2, were whole: their records are
# written.
head -n 2 reappear1.jsonl | "$rladv" --batch-groups 1 > before1.jsonl
[ -s before1.jsonl ] || no group_reappears_before "no output for lines 1-2"
before=before1.jsonl
run --batch-groups 1 reappear1.jsonl
data_error group_reappears_one_line reappear1.jsonl 3 '"a" reappears after its group ended (reappear1.jsonl line 1);'
# Under --unsorted a group ends with its batch: the advice is not --unsorted.
run --batch-groups 1 --unsorted reappear1.jsonl
data_error group_reappears_unsorted reappear1.jsonl 3 'reappears after its batch ended|give --batch-groups more'
before=
if grep -q 'use --unsorted' err; then no group_reappears_unsorted_advice "$(cat err)"; else ok; fi

# Wrong group size: the error names the group and its first line.
printf '%s\n%s\n%s\n' "$G" "$G" "$G" >size3.jsonl
run --group-size 2 size3.jsonl
data_error group_size_too_big size3.jsonl 1 '"a"|--group-size'
{ printf '%s\n%s\n' "$G" "$G"; printf '%s\n' '{"prompt_id":"b","reward":1,"logprobs":[-0.5]}'
  printf '%s\n%s\n' '{"prompt_id":"c","reward":1,"logprobs":[-0.5]}' '{"prompt_id":"c","reward":0,"logprobs":[-0.5]}'
} >size1.jsonl
run --group-size 2 size1.jsonl
data_error group_size_too_small size1.jsonl 3 '"b"|--group-size'
# Key-less blocks (TRL's layout): 5 records are not blocks of 2.
awk 'BEGIN { for (i = 0; i < 5; i++) print "{\"reward\":" i % 2 ",\"logprobs\":[-0.5]}" }' >blocks5.jsonl
run --group-size 2 blocks5.jsonl
data_error block_size blocks5.jsonl 5 'the block that starts here has 1 record, expected --group-size 2'
# With --trajectory-key the sizes count trajectories (of two rows here).
awk 'BEGIN { for (i = 0; i < 6; i++) print "{\"uid\":\"a\",\"t\":" int(i / 2) ",\"reward\":" i % 2 ",\"logprobs\":[-0.5]}" }' >traj3.jsonl
run --group-size 2 --trajectory-key t traj3.jsonl
data_error traj_group_size traj3.jsonl 1 'group "a" has 3 trajectories, expected --group-size 2'
awk 'BEGIN { for (i = 0; i < 6; i++) print "{\"t\":" int(i / 2) ",\"reward\":" i % 2 ",\"logprobs\":[-0.5]}" }' >trajb.jsonl
run --group-size 2 --trajectory-key t trajb.jsonl
data_error traj_block_size trajb.jsonl 5 'the block that starts here has 1 trajectory, expected --group-size 2'

# --- Strata ---------------------------------------------------------------
S='{"prompt_id":"a","tool_calls":1,"reward":1,"logprobs":[-0.5]}'
printf '%s\n%s\n%s\n' "$S" "$S" "$G" >nostratum.jsonl
run -a san nostratum.jsonl
data_error missing_stratum nostratum.jsonl 3 'tool_calls'
printf '%s\n%s\n' "$S" '{"prompt_id":"a","tool_calls":{"n":1},"reward":1,"logprobs":[-0.5]}' >stratobj.jsonl
run -a stratified stratobj.jsonl
data_error stratum_object stratobj.jsonl 2 'tool_calls'
printf '%s\n%s\n' "$S" '{"prompt_id":"a","tool_calls":null,"reward":1,"logprobs":[-0.5]}' >stratnull.jsonl
run -a san stratnull.jsonl
data_error stratum_null stratnull.jsonl 2 'tool_calls'

# --- Rollouts (--rollout-key) ---------------------------------------------
R='{"group_index":0,"index":0,"rollout_id":3,"response_length":1,"reward":1,"loss_mask":[1],"rollout_log_probs":[-0.5]}'
printf '%s\n%s\n' "$R" '{"group_index":0,"index":1,"rollout_id":{"id":3},"response_length":1,"reward":0,"loss_mask":[1],"rollout_log_probs":[-0.5]}' >rollobj.jsonl
run --rollout-key rollout_id -g seq rollobj.jsonl
data_error rollout_object rollobj.jsonl 2 'rollout_id'
printf '%s\n%s\n' "$R" '{"group_index":0,"index":1,"response_length":1,"reward":0,"loss_mask":[1],"rollout_log_probs":[-0.5]}' >rollnone.jsonl
run --rollout-key rollout_id -g seq rollnone.jsonl
data_error rollout_missing rollnone.jsonl 2 'rollout_id'
# Absent where --from slime made it optional (slime before 0.3.0): a
# rollout of its own.
run --from slime rollnone.jsonl
if [ "$st" -eq 0 ] && [ ! -s err ]; then ok; else
	no rollout_optional "status $st: $(head -c 300 err)"; fi
run --rollout-key rollout_id --trajectory-key t rollobj.jsonl
if [ "$st" -eq 2 ] && grep -q -- '--rollout-key and --trajectory-key' err &&
    [ "$(wc -l <err)" -eq 1 ]; then ok; else
	no rollout_traj "status $st: $(head -c 300 err)"; fi

# --- What a framework gives NaN for or raises on (--like); remax's -------
# --- baseline field -------------------------------------------------------
V='{"uid":"a","reward_score":1.0,"response_logprobs":[-0.5,-0.2],"response_mask":[1,1]}'
printf '%s\n%s\n%s\n' "$V" \
    '{"uid":"a","reward_score":0.0,"response_logprobs":[-0.5,-0.2],"response_mask":[0,0]}' \
    '{"uid":"b","reward_score":1.0,"response_logprobs":[-0.5],"response_mask":[1]}' >verl.jsonl
VK='--reward-key reward_score --logprobs-key response_logprobs'
run --like verl@0.6.0 -g seq $VK verl.jsonl
data_error verl060_seq_masked verl.jsonl 2 'the record has no trained token, where verl 0.6.0|--like verl'
run --like verl -a grpo_passk $VK verl.jsonl
data_error passk_group_of_one verl.jsonl 3 '"b"|grpo_passk'
run --like slime -a reinforce_plus_plus $VK verl.jsonl
data_error slime_rpp_masked verl.jsonl 2 "the record has no trained token, which slime's reinforce_plus_plus refuses"
# The record refused is named by its own line, not its group's first, in
# a group that is not the first, and when its group is computed apart
# (rewards past 2^500) or without the zero-variance groups.
printf '%s\n' '{"uid":"a","reward":1.0,"response_mask":[1,1]}' \
    '{"uid":"a","reward":0.0,"response_mask":[1]}' \
    '{"uid":"b","reward":3.0,"response_mask":[1]}' \
    '{"uid":"b","reward":2.0,"response_mask":[0,0]}' >untrained.jsonl
run --like slime -a rpp untrained.jsonl
data_error slime_rpp_record_line untrained.jsonl 4 "the record has no trained token, which slime's"
run --like verl@0.6.0 -g seq untrained.jsonl
data_error verl060_seq_record_line untrained.jsonl 4 'the record has no trained token, where verl 0.6.0'
sed 's/"reward":3.0/"reward":3e300/; s/"reward":2.0/"reward":-2e300/' untrained.jsonl >untrained_big.jsonl
run --like verl@0.6.0 -g seq -a rloo untrained_big.jsonl
data_error verl060_seq_apart untrained_big.jsonl 4 'the record has no trained token'
{ printf '{"uid":"z","reward":1.0,"response_mask":[1]}\n{"uid":"z","reward":1.0,"response_mask":[1]}\n'
  cat untrained.jsonl; } >untrained_zero.jsonl
run --like verl@0.6.0 -g seq --drop-zero-std untrained_zero.jsonl
data_error verl060_seq_dropped untrained_zero.jsonl 6 'the record has no trained token'
# OpenRLHF divides its losses 0 by 0 on a batch with no trained token
# (NaN gradients): refused at the batch's first line, -g token and -g seq,
# 0.11.0 and 0.10.2; -g seq-sum is not OpenRLHF's and goes through.  Skip
# mode rejects each group of that batch whole and keeps the next batch.
printf '%s\n' '{"uid":"b","reward":3.0,"response_mask":[0]}' \
    '{"uid":"b","reward":2.0,"response_mask":[0,0]}' \
    '{"uid":"c","reward":1.0,"response_mask":[0]}' \
    '{"uid":"a","reward":1.0,"response_mask":[1,1]}' \
    '{"uid":"a","reward":0.0,"response_mask":[1]}' >emptybatch.jsonl
run --like openrlhf --batch-groups 2 emptybatch.jsonl
data_error openrlhf_empty_batch emptybatch.jsonl 1 "the batch has no trained token, where openrlhf 0.11.0's -g token divides 0 by 0 (NaN gradients)"
run --like openrlhf -g seq --batch-groups 2 emptybatch.jsonl
data_error openrlhf_empty_batch_seq emptybatch.jsonl 1 "the batch has no trained token, where openrlhf 0.11.0's -g seq"
run --like openrlhf@0.10.2 --batch-groups 2 emptybatch.jsonl
data_error openrlhf0102_empty_batch emptybatch.jsonl 1 "openrlhf 0.10.2's -g token divides 0 by 0"
run --like openrlhf -g seq-sum --batch-groups 2 emptybatch.jsonl
if [ "$st" -eq 0 ] && [ "$(wc -l <out)" -eq 5 ]; then ok; else
	no openrlhf_empty_batch_seqsum "status $st: $(head -c 300 err)"; fi
run --like openrlhf --batch-groups 2 --on-error skip emptybatch.jsonl
if [ "$st" -eq 0 ] && [ "$(wc -l <out)" -eq 2 ] &&
    grep -q '^rladv: emptybatch\.jsonl:1: the batch has no trained token, .*, in group "b" (line 1); rejected whole$' err &&
    grep -q '^rladv: emptybatch\.jsonl:3: the batch has no trained token, .*, in group "c" (line 3); rejected whole$' err; then ok; else
	no openrlhf_empty_batch_skip "status $st: $(head -c 400 err)"; fi
# openrlhf@0.10.2's per-sample loss divides a record without a trained
# token 0 by 0; 0.11.0 leaves it out.
run --like openrlhf@0.10.2 -g seq untrained.jsonl
data_error openrlhf0102_seq_record untrained.jsonl 4 "the record has no trained token, where openrlhf 0.10.2's seq-mean-token-mean divides 0 by 0|--like openrlhf for its newest rule"
# Skip mode rejects its group whole, and names it.
run --like slime -a rpp --on-error skip untrained.jsonl
m="^rladv: untrained\\.jsonl:4: the record has no trained token, .*, in group \"b\" (line 3); rejected whole\$"
if [ "$st" -eq 0 ] && grep -q "$m" err && [ "$(wc -l <out)" -eq 2 ]; then ok; else
	no slime_rpp_skip "status $st: $(head -c 300 err)"; fi
run -a remax $VK verl.jsonl
data_error remax_no_baseline verl.jsonl 1 'reward_baselines'
printf '%s\n' '{"uid":"a","reward_score":1.0,"response_logprobs":[-0.5],"reward_baselines":"x"}' >remax.jsonl
run -a remax $VK remax.jsonl
data_error remax_baseline_string remax.jsonl 1 'reward_baselines'
run -a remax --baseline-key greedy $VK remax.jsonl
data_error remax_baseline_named remax.jsonl 1 'greedy'

# --- Compressed input -----------------------------------------------------
awk 'BEGIN { for (i = 0; i < 20000; i++)
	printf "{\"prompt_id\":\"p%d\",\"reward\":%d,\"logprobs\":[-0.5,-0.25,-0.125]}\n", i / 4, i % 2 }' >many.jsonl
gzip -c many.jsonl >many.gz
sz=$(wc -c <many.gz | tr -d ' ')
head -c $((sz / 2)) many.gz >truncated.gz
run truncated.gz
# The line is the one the data ended in: any number will do here.
lines_msg=$(sed -n 's/^rladv: truncated\.gz:\([0-9][0-9]*\): .*/\1/p' err)
data_error truncated_gzip truncated.gz "${lines_msg:-<no line number>}" 'gzip'
# Other places to cut: in the trailer, in the first block, in the header;
# a corrupt member; bytes after the data.  Status 1 and one message naming
# the file and gzip (the line is checked once, above).
gz_error() {
	if [ "$st" -eq 1 ] && [ "$(wc -l <err | tr -d ' ')" -eq 1 ] &&
	    grep -q "^rladv: $2:.*${3-gzip}" err && [ ! -s out ]; then ok; else
		no "$1" "status $st, stderr: $(head -c 200 err)"; fi
}
head -c $((sz - 4)) many.gz >truncated_tail.gz
run truncated_tail.gz
gz_error truncated_gzip_trailer truncated_tail.gz
head -c 15 many.gz >truncated_header.gz
run truncated_header.gz
gz_error truncated_gzip_header truncated_header.gz
head -c 5 many.gz >truncated_magic.gz
run truncated_magic.gz
gz_error truncated_gzip_magic truncated_magic.gz
{ head -c $((sz / 2)) many.gz; printf 'CORRUPTCORRUPTCORRUPT'; tail -c $((sz / 2 - 21)) many.gz; } >corrupt.gz
run corrupt.gz
# (garbage inflated before the CRC is checked may fail as JSON first)
gz_error corrupt_gzip corrupt.gz ''
{ cat many.gz; printf 'trailing garbage\n'; } >trailing.gz
run trailing.gz
gz_error gzip_trailing_garbage trailing.gz
run_in truncated.gz
if [ "$st" -eq 1 ] && grep -q '^rladv: <stdin>' err && [ ! -s out ]; then ok; else
	no truncated_gzip_stdin "status $st: $(head -c 200 err)"; fi
# A bad record inside gzip input: the line number counts decompressed lines.
{ printf '%s\n%s\n' "$G" "$G"; printf '%s\n' '{"prompt_id":"a","reward":"x","logprobs":[-0.5]}'; } | gzip -c >badrec.gz
run badrec.gz
data_error gzip_bad_record badrec.gz 3 'reward'

# --- Line length ----------------------------------------------------------
printf '%s\n{"prompt_id":"a","reward":1,"logprobs":[%s-0.5]}\n' "$G" "$(awk 'BEGIN { for (i = 0; i < 40; i++) printf "-0.5," }')" >long.jsonl
run --max-line 100 long.jsonl
data_error max_line long.jsonl 2 'max-line'
run_in long.jsonl --max-line 100
data_error max_line_stdin '<stdin>' 2 'max-line'
gzip -c long.jsonl >long.gz
run --max-line 100 long.gz
data_error max_line_gzip long.gz 2 'max-line'

# --- Line numbers ---------------------------------------------------------
# Blank lines count, CRLF is a line end, each file counts from 1, standard
# input is named.
printf '%s\n\n   \n%s\n' "$G" '{"prompt_id":"a","reward":"x","logprobs":[-0.5]}' >blanks.jsonl
run blanks.jsonl
data_error blank_lines_counted blanks.jsonl 4 'reward'
printf '%s\r\n%s\r\n%s\r\n' "$G" "$G" '{"prompt_id":"a","reward":{},"logprobs":[-0.5]}' >crlf.jsonl
run crlf.jsonl
data_error crlf_lines crlf.jsonl 3 'reward'
printf '%s\n%s\n' "$G" "$G" >good.jsonl
printf '%s\n' '{"prompt_id":"a","reward":1}' >second.jsonl
run good.jsonl second.jsonl
data_error second_file second.jsonl 1 'logprobs'
printf '%s\n%s\n' "$G" '{"prompt_id":"a","reward":"x","logprobs":[-0.5]}' >bad_stdin.jsonl
run_in bad_stdin.jsonl
data_error stdin_named '<stdin>' 2 'reward'

# --- A later batch fails: whatever came before, the status is not 0 --------
{ printf '%s\n' '{"step":1,"prompt_id":"a","reward":1,"logprobs":[-0.5]}' \
    '{"step":1,"prompt_id":"a","reward":0,"logprobs":[-0.5]}' \
    '{"step":2,"prompt_id":"b","reward":1,"logprobs":[-0.5]}' \
    '{"step":2,"prompt_id":"b","reward":Infinity,"logprobs":[-0.5]}'; } >batches.jsonl
run --batch-key step batches.jsonl
if [ "$st" -eq 1 ] && grep -q '^rladv: batches\.jsonl:4: ' err; then
	if grep -q '"step":2' out; then
		no later_batch_fails "records of the failed batch were written"
	else ok; fi
else
	no later_batch_fails "status $st, stderr: $(head -c 200 err)"
fi

# --- Never a wrong number -------------------------------------------------
# Rewards whose squares overflow a double: population std 1e200, so GRPO
# gives +1 and -1 (to 1e-6).  Either those numbers, or a FILE:LINE error.
printf '%s\n%s\n' '{"prompt_id":"h","reward":1e200,"logprobs":[-0.5]}' \
    '{"prompt_id":"h","reward":-1e200,"logprobs":[-0.5]}' >huge.jsonl
run --no-tokens huge.jsonl
if [ "$st" -eq 0 ]; then
	if sed -n 's/.*"advantage":\([^,}]*\).*/\1/p' out |
	    awk '{ a = $1 < 0 ? -$1 : $1; if (a < 0.999 || a > 1.001) bad = 1; n++ }
		END { exit !(n == 2 && !bad) }'; then ok; else
		no huge_rewards_grpo "exit 0 with wrong advantages (expected +1, -1): $(sed -n 's/.*"advantage":\([^,}]*\).*/\1/p' out | tr '\n' ' ')"
	fi
else
	data_error huge_rewards_grpo huge.jsonl 1 ''
fi
run --no-tokens -a rpp-baseline huge.jsonl
if [ "$st" -eq 0 ]; then
	# a = +-1e200, whitened with v = 2e400 (n - 1 = 1): +-0.7071.
	if sed -n 's/.*"advantage":\([^,}]*\).*/\1/p' out |
	    awk '{ a = $1 < 0 ? -$1 : $1; if (a < 0.7 || a > 0.72) bad = 1; n++ }
		END { exit !(n == 2 && !bad) }'; then ok; else
		no huge_rewards_rpp "exit 0 with wrong advantages (expected +-0.7071): $(sed -n 's/.*"advantage":\([^,}]*\).*/\1/p' out | tr '\n' ' ')"
	fi
else
	data_error huge_rewards_rpp huge.jsonl 1 ''
fi
# Rewards near the largest double: their sum overflows.
printf '%s\n%s\n%s\n' '{"prompt_id":"m","reward":1.7e308,"logprobs":[-0.5]}' \
    '{"prompt_id":"m","reward":1.7e308,"logprobs":[-0.5]}' \
    '{"prompt_id":"m","reward":-1.7e308,"logprobs":[-0.5]}' >max.jsonl
run --no-tokens max.jsonl
if [ "$st" -eq 0 ]; then
	if [ "$(grep -c '"advantage":[-0-9]' out)" -ne 3 ] || grep -q -i 'nan\|inf' out; then
		no max_rewards "exit 0, but not 3 records with finite advantages"; else ok; fi
else
	data_error max_rewards max.jsonl 1 ''
fi

# --- Usage: --rejects without skip says what to type ----------------------
run --rejects r.txt good.jsonl
if [ "$st" -eq 2 ] && grep -q -- '--on-error skip' err && [ ! -s out ]; then ok; else
	no rejects_needs_skip "status $st: $(head -c 200 err)"; fi
# --std-scope moves the deviation of grpo, san, stratified, grpo-whiten and
# passk; given to an estimator without one it is refused, as --gn-scope is,
# and --eps-inside with --std-scope none (no deviation) too.
run -a rloo --std-scope batch good.jsonl
if [ "$st" -eq 2 ] && grep -q -- '--std-scope batch: -a rloo' err && [ ! -s out ]; then ok; else
	no std_scope_rloo "status $st: $(head -c 200 err)"; fi
run --eps-inside --std-scope none good.jsonl
if [ "$st" -eq 2 ] && grep -q -- '--eps-inside' err && [ ! -s out ]; then ok; else
	no eps_inside_std_none "status $st: $(head -c 200 err)"; fi
# --annotate adds a member per record, which a line of columns (ROLL's
# dump) does not have: refused, not silently left out.
printf '%s\n' '{"id": ["a", "a"], "scores": [1, 0]}' >columnar.jsonl
run --columnar --group-key id --reward-key scores --no-tokens --annotate \
    columnar.jsonl
if [ "$st" -eq 2 ] && grep -q -- '--annotate' err && grep -q -- '--columnar' err &&
    [ ! -s out ]; then ok; else
	no annotate_columnar "status $st: $(head -c 200 err)"; fi

# --- Nothing lost: --on-error skip --rejects ------------------------------
# summary: sets in, outn, rej from the summary line on stderr.
summary() {
	s=$(grep '^rladv: [0-9][0-9]* records* in, [0-9]* out, [0-9]* rejected' err | tail -n 1)
	in=$(printf '%s\n' "$s" | sed -n 's/^rladv: \([0-9]*\) records* in.*/\1/p')
	outn=$(printf '%s\n' "$s" | sed -n 's/.* records* in, \([0-9]*\) out.*/\1/p')
	rej=$(printf '%s\n' "$s" | sed -n 's/.* out, \([0-9]*\) rejected.*/\1/p')
}
# accounting NAME IN OUT REJ: the summary and stdout agree with the counts.
accounting() {
	if [ "$st" -ne 0 ]; then
		no "$1" "status $st, expected 0: $(grep -v '^rladv: [^ ]*:[0-9]*: ' err | head -c 300)"
		return 1
	fi
	summary
	if [ -z "$in" ] || [ -z "$outn" ] || [ -z "$rej" ]; then
		no "$1" "no summary line \"N records in, M out, K rejected\" on stderr"
		return 1
	fi
	lines=$(wc -l <out | tr -d ' ')
	if [ "$in" -ne $((outn + rej)) ]; then
		no "$1" "in = $in != out + rejected = $outn + $rej"
		return 1
	fi
	if [ "$lines" -ne "$outn" ]; then
		no "$1" "summary says $outn out, stdout has $lines records"
		return 1
	fi
	if [ "$in" -ne "$2" ] || [ "$outn" -ne "$3" ] || [ "$rej" -ne "$4" ]; then
		no "$1" "got $in in, $outn out, $rej rejected; expected $2, $3, $4"
		return 1
	fi
	ok
}

# A mixed input: 12 good records in 4 groups, and bad lines of many kinds,
# some with bytes that must survive unchanged (NUL, invalid UTF-8, a tab,
# trailing blanks).  The rejects file must be exactly the bad lines.
good() { printf '{"prompt_id":"%s","reward":%s,"logprobs":[-0.5,-0.25]}\n' "$1" "$2"; }
{
	good a 1; good a 0
	printf 'not json at all\n'
	good a 1
	printf '{"prompt_id":"a","reward":NaN,"logprobs":[-0.5]}\n'
	good b 0
	printf '{"prompt_id":"b","reward":1,"logprobs":[-0.5],"mask":[1,1]}\n'
	good b 1; good b 1
	printf '[1,2,3]\n'
	printf '{"prompt_id":"b","reward":"one","logprobs":[-0.5]}   \n'
	printf '\n'
	good c 0
	printf '{"prompt_id":"c\000","reward":1,"logprobs":[-0.5]}\n'
	printf '{"prompt_id":"c\377","reward":1,"logprobs":[-0.5]}\n'
	good c 1
	printf '{"prompt_id":"c","reward":1,\t"logprobs":[-0.5,NaN]}\n'
	good d 1
	printf '{"prompt_id":"","reward":1,"logprobs":[-0.5]}\n'
	printf '{"prompt_id":"a","reward":1,"logprobs":[-0.5]}\n'
	good d 0; good d 1
	printf '%s' "$(deep '[')"; printf '\n'
	printf '{"prompt_id":"d","reward":1e999,"logprobs":[-0.5]}'
} >mixed.jsonl
{
	printf 'not json at all\n'
	printf '{"prompt_id":"a","reward":NaN,"logprobs":[-0.5]}\n'
	printf '{"prompt_id":"b","reward":1,"logprobs":[-0.5],"mask":[1,1]}\n'
	printf '[1,2,3]\n'
	printf '{"prompt_id":"b","reward":"one","logprobs":[-0.5]}   \n'
	printf '{"prompt_id":"c\000","reward":1,"logprobs":[-0.5]}\n'
	printf '{"prompt_id":"c\377","reward":1,"logprobs":[-0.5]}\n'
	printf '{"prompt_id":"c","reward":1,\t"logprobs":[-0.5,NaN]}\n'
	printf '{"prompt_id":"","reward":1,"logprobs":[-0.5]}\n'
	printf '{"prompt_id":"a","reward":1,"logprobs":[-0.5]}\n'
	printf '%s' "$(deep '[')"; printf '\n'
	printf '{"prompt_id":"d","reward":1e999,"logprobs":[-0.5]}\n'
} >mixed.expected
run --on-error skip --rejects mixed.rej mixed.jsonl
accounting skip_accounting 23 11 12
if cmp -s mixed.rej mixed.expected; then ok; else
	no skip_rejects_verbatim "rejects file differs from the bad lines (cmp: $(cmp mixed.rej mixed.expected 2>&1))"; fi
# Each rejected line was reported, with its file and line.
for l in 3 5 7 10 11 14 15 17 19 20 23 24; do
	if grep -q "^rladv: mixed\.jsonl:$l: " err; then :; else
		no skip_reports "no message for mixed.jsonl:$l"
		l=
		break
	fi
done
[ -n "$l" ] && ok
# The same from gzip input and from standard input.
gzip -c mixed.jsonl >mixed.gz
run --on-error skip --rejects mixedgz.rej mixed.gz
accounting skip_accounting_gzip 23 11 12
if cmp -s mixedgz.rej mixed.expected; then ok; else
	no skip_rejects_verbatim_gzip "rejects file differs from the bad lines"; fi
run_in mixed.jsonl --on-error skip --rejects mixedin.rej --unsorted
accounting skip_accounting_stdin_unsorted 23 12 11

# A group left incomplete by a rejection under --group-size is rejected
# whole: b loses a record, so both of its records go.
{
	good a 1; good a 0
	good b 1; printf '{"prompt_id":"b","reward":"bad","logprobs":[-0.5]}\n'
	good c 1; good c 0
} >gs.jsonl
{ printf '{"prompt_id":"b","reward":"bad","logprobs":[-0.5]}\n'; good b 1; } | sort >gs.expected
run --group-size 2 --on-error skip --rejects gs.rej gs.jsonl
accounting group_size_skip 6 4 2
if [ -f gs.rej ] && sort gs.rej | cmp -s - gs.expected; then ok; else
	no group_size_skip_rejects "rejects file is not group b's two lines: $(cat gs.rej 2>&1)"; fi
if [ "$(grep -c '"prompt_id":"[ac]"' out)" -eq 4 ] &&
    ! grep -q '"prompt_id":"b"' out; then ok; else
	no group_size_skip_out "stdout is not the records of a and c"; fi
# A group of the wrong size with no bad record: rejected whole too.
{ good a 1; good a 0; good b 1; good b 0; good b 1; good c 1; good c 0; } >gs3.jsonl
run --group-size 2 --on-error skip --rejects gs3.rej gs3.jsonl
accounting group_size_skip_whole 7 4 3
if [ "$(grep -c '"prompt_id":"b"' gs3.rej 2>/dev/null)" = 3 ]; then ok; else
	no group_size_skip_whole_rejects "group b's three lines are not all in the rejects file"; fi
# Key-less blocks of --group-size 2 (TRL's layout): the bad record belongs
# to the second block, lines 3-4.  That block is rejected whole; the third
# block (lines 5-6) is unaffected and keeps its own numbers.
{
	printf '{"reward":1,"logprobs":[-0.5],"n":1}\n'
	printf '{"reward":0,"logprobs":[-0.5],"n":2}\n'
	printf '{"reward":1,"logprobs":[-0.5],"n":3}\n'
	printf '{"reward":"bad","logprobs":[-0.5],"n":4}\n'
	printf '{"reward":1,"logprobs":[-0.5],"n":5}\n'
	printf '{"reward":0,"logprobs":[-0.5],"n":6}\n'
} >blocks.jsonl
run --group-size 2 --on-error skip --rejects blocks.rej blocks.jsonl
accounting blocks_skip 6 4 2
m='^rladv: blocks\.jsonl:3: the block that starts here has 1 record, expected --group-size 2; rejected whole$'
if grep -q "$m" err; then ok; else
	no blocks_skip_message "no block message: $(head -c 300 err)"; fi
got=$(sed -n 's/.*"n":\([0-9]\).*/\1/p' out | tr -d '\n')
if [ "$got" = 1256 ]; then ok; else
	no blocks_skip_whole "records written: n = $got, expected 1256 (block 3-4 rejected whole)"; fi
# (in any order: the bad line is written when read, its block-mate when
# the block is found incomplete)
got=$(sed -n 's/.*"n":\([0-9]\).*/\1/p' blocks.rej 2>/dev/null | sort | tr -d '\n')
if [ "$got" = 34 ]; then ok; else
	no blocks_skip_rejects "rejects: n = $got, expected 3 and 4"; fi
# Batches and skip mode together.
{
	printf '{"step":1,"prompt_id":"a","reward":1,"logprobs":[-0.5]}\n'
	printf '{"step":1,"prompt_id":"a","reward":0,"logprobs":[-0.5]}\n'
	printf '{"step":1,"prompt_id":"b","reward":x,"logprobs":[-0.5]}\n'
	printf '{"step":2,"prompt_id":"b","reward":1,"logprobs":[-0.5]}\n'
	printf '{"step":2,"prompt_id":"b","reward":0,"logprobs":[-0.5]}\n'
	printf '{"step":2,"prompt_id":"c","reward":0,"logprobs":[]}\n'
	printf '{"step":3,"prompt_id":"a","reward":0,"logprobs":[-0.5],"mask":[7]}\n'
} >skipbatch.jsonl
run --batch-key step --on-error skip --rejects sb.rej skipbatch.jsonl
accounting skip_batches 7 5 2
# Streaming groups in skip mode, with a record that has no group key.
{ good a 1; good a 0; printf '{"reward":1,"logprobs":[-0.5]}\n'; good b 1; good b 0; } >skipstream.jsonl
run --scope group --on-error skip --rejects ss.rej skipstream.jsonl
accounting skip_streaming_no_key 5 4 1
# Skip mode's cost is linear in the batch: 418,000 records in 220,000
# groups of --group-size 2, every tenth group short (22,000 rejected
# whole).  A pass over the records per group, as rladv once made, is
# 10^10 steps or more here: minutes of CPU, far past the limit below,
# where the linear way takes about a second (a few under sanitizers).
# Counts, not a time, decide the rest: in = out + rejected, and the
# rejects file is exactly the short groups' lines, in input order.
awk 'BEGIN { for (g = 0; g < 220000; g++) for (j = 0; j < (g % 10 == 9 ? 1 : 2); j++)
	printf "{\"prompt_id\":%d,\"reward\":%d,\"logprobs\":[-0.5]}\n", g, j }' >big.jsonl
awk 'BEGIN { for (g = 9; g < 220000; g += 10)
	printf "{\"prompt_id\":%d,\"reward\":0,\"logprobs\":[-0.5]}\n", g }' >big.expected
( ulimit -t 60; exec "$rladv" --group-size 2 --on-error skip --rejects big.rej big.jsonl ) >out 2>err
st=$?
if accounting skip_linear 418000 396000 22000; then
	if cmp -s big.rej big.expected; then ok; else
		no skip_linear_rejects "rejects file is not the 22000 short groups' lines"; fi
fi
[ "$st" -gt 128 ] && no skip_linear_cpu "killed by signal $((st - 128)) (CPU limit of 60 s: quadratic?)"
rm -f big.jsonl big.expected big.rej out

# Skip mode does not skip what cannot be skipped: truncated gzip input
# still fails, and never with status 0.
run --on-error skip truncated.gz
if [ "$st" -eq 1 ] && grep -q '^rladv: truncated\.gz:.*gzip' err; then ok; else
	no skip_truncated_gzip "status $st, expected 1: $(head -c 200 err)"; fi
# A run that stops prints no summary: its counts do not add up (2 records
# in, 0 out, 0 rejected, on a cut gzip file), nor after a usage error.
if grep -q 'records* in, ' err; then
	no skip_stopped_no_summary "a summary after the error: $(cat err)"; else ok; fi
printf '%s\n' "$G" "$G" >twoa.jsonl
run --on-error skip -a msgrpo --ms-weights 0,0,1 twoa.jsonl
if [ "$st" -eq 2 ] && [ "$(wc -l <err | tr -d ' ')" -eq 1 ] &&
    ! grep -q 'records* in, ' err; then ok; else
	no skip_usage_no_summary "status $st: $(cat err)"; fi
# A line longer than --max-line in skip mode: a failure (status 1), or
# rejected and counted; never silently dropped.
run --on-error skip --rejects long.rej --max-line 100 long.jsonl
if [ "$st" -eq 1 ] && grep -q '^rladv: long\.jsonl:2: .*max-line' err; then
	ok
elif [ "$st" -eq 0 ]; then
	accounting skip_max_line 2 1 1
else no skip_max_line "status $st"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
