# bash completion for wfrun(1): its commands, the options of each command
# and their values, workflow files, and the task names of the workflow
# file on the line (after an option whose value is a TASK, and as the
# targets of run when its usage names TARGETs).
#
# What the commands and options are is read from wfrun itself (`wfrun
# --help`, `wfrun COMMAND --help`), so this file lists none of them; the
# task names come from `wfrun list --names FILE`, or, from a wfrun
# without it, from the nodes of `wfrun dag --names FILE`.
# Installed as $(PREFIX)/share/bash-completion/completions/wfrun.

# What `wfrun [COMMAND] --help` says ($1: wfrun, $2: the command or
# nothing), one item a line: "c NAME" for each command it lists, "u" and
# the usage line, "o OPTION VALUE" for each option, VALUE as --help names
# it (FILE, TASK, N, a|b; "-": none).
_wfrun_help()
{
	"$1" ${2:+"$2"} --help 2>/dev/null | awk '
	NR == 1 { print "u " $0 }
	/^commands:/ { cmds = 1; next }
	cmds && !NF { cmds = 0 }
	cmds { print "c " $1 }
	/^  (-[a-zA-Z]|    --)/ {
		n = 0
		for (i = 1; i <= NF && $i ~ /^-/; i++) {
			sub(/,$/, "", $i)
			o[++n] = $i
		}
		v = ($i ~ /^[A-Z]/ || $i ~ /\|/) ? $i : "-"
		for (k = 1; k <= n; k++)
			print "o " o[k] " " v
	}'
}

# The task names of workflow file $2, one a line.
_wfrun_tasks()
{
	"$1" list --names "$2" 2>/dev/null ||
		"$1" dag --names "$2" 2>/dev/null |
		sed -n 's/^  n[0-9]* \[label="\([A-Za-z0-9_-]*\).*/\1/p'
}

# Files (and directories) that start with $1, hidden ones only when $1
# names them; with $2, only directories and files ending in $2 or $3.
_wfrun_files()
{
	local f
	compopt -o filenames 2>/dev/null
	while IFS= read -r f; do
		[[ ${f##*/} == .* && ${1##*/} != .* ]] && continue
		[[ -n $2 && ! -d $f && $f != *"$2" && $f != *"$3" ]] && continue
		COMPREPLY+=("$f")
	done < <(compgen -f -- "$1")
	return 0
}

_wfrun()
{
	local wfrun=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]}
	local prev= i w k a b cmd= file= usage= val
	local -a cmds=() opts=()
	local -A value=() iscmd=()
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	# --opt=VALUE: bash splits it at the '='
	if [[ $cur == = ]]; then
		cur=
	elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi
	COMPREPLY=()
	# the commands and run's options (wfrun --help lists both)
	while read -r k a b; do
		case $k in
		u) usage=$a$b ;;
		c) cmds+=("$a") iscmd[$a]=1 ;;
		o) opts+=("$a") value[$a]=$b ;;
		esac
	done < <(_wfrun_help "$wfrun")
	# the command and the workflow file, on either side of the word
	# completed
	for ((i = 1; i < ${#COMP_WORDS[@]}; i++)); do
		w=${COMP_WORDS[i]}
		if ((i == COMP_CWORD)); then
			continue
		elif [[ $w == -* ]]; then
			if [[ ${COMP_WORDS[i + 1]} == = ]]; then
				((i += 2))
			elif [[ ${value[$w]:--} != - ]]; then
				((i += 1))
			fi
		elif [[ -z $cmd && -z $file && -n ${iscmd[$w]} ]]; then
			cmd=$w
		elif [[ -z $file ]]; then
			file=$w
		fi
	done
	if [[ -n $cmd ]]; then
		opts=() value=()
		while read -r k a b; do
			case $k in
			u) usage=$a$b ;;
			o) opts+=("$a") value[$a]=$b ;;
			esac
		done < <(_wfrun_help "$wfrun" "$cmd")
	fi
	# the value of an option
	if [[ $prev == -* && ${value[$prev]:--} != - ]]; then
		val=${value[$prev]}
		case $val in
		TASK)
			[[ -n $file ]] &&
				COMPREPLY=($(compgen -W "$(_wfrun_tasks "$wfrun" "$file")" -- "$cur")) ;;
		FILE)
			_wfrun_files "$cur" ;;
		*'|'*)
			COMPREPLY=($(compgen -W "${val//|/ }" -- "$cur")) ;;
		esac
		return 0 # else a number
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "${opts[*]}" -- "$cur"))
		return 0
	fi
	case ${cmd:-run} in
	run | check | dag | sim)
		if [[ -z $file ]]; then
			[[ -z $cmd ]] && COMPREPLY=($(compgen -W "${cmds[*]}" -- "$cur"))
			_wfrun_files "$cur" .yaml .yml
		elif [[ ${cmd:-run} == run && $usage == *TARGET* ]]; then
			# targets (when run takes them): task names and files
			COMPREPLY=($(compgen -W "$(_wfrun_tasks "$wfrun" "$file")" -- "$cur"))
			_wfrun_files "$cur"
		fi ;;
	probe)
		if [[ -z $file ]]; then
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -d -- "$cur"))
		fi ;;
	report|log)
		[[ -z $file ]] && _wfrun_files "$cur" ;;
	help)
		[[ -z $file ]] && COMPREPLY=($(compgen -W "${cmds[*]}" -- "$cur")) ;;
	esac
	return 0
}

complete -F _wfrun wfrun
