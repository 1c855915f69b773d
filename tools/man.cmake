# Writes kvlint.1 (roff) from `kvlint --help`: cmake -DKVLINT=... -DOUT=... -DVERSION=... -P man.cmake
execute_process(COMMAND ${KVLINT} --help OUTPUT_VARIABLE HELP RESULT_VARIABLE RC)
if(NOT RC EQUAL 0)
  message(FATAL_ERROR "kvlint --help failed: ${RC}")
endif()
# roff: a leading '.' or "'" starts a request, '\' escapes.
string(REPLACE "\\" "\\e" HELP "${HELP}")
string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" HELP "${HELP}")
file(WRITE ${OUT} ".TH KVLINT 1 \"\" \"kvlint ${VERSION}\" \"User Commands\"
.SH NAME
kvlint \\- index-overflow and KV-cache checks for GPU kernels
.SH SYNOPSIS
.B kvlint
[\\fIoptions\\fR] \\fIfile-or-dir\\fR... [\\fB--\\fR \\fIcompiler flags\\fR]
.br
.B kvlint rule
\\fICODE\\fR
.SH DESCRIPTION
.nf
${HELP}.fi
.SH SEE ALSO
.BR clang-tidy-19 (1).
The documentation is in /usr/share/doc/kvlint (docs/cli.md, docs/ci.md, docs/rules/).
")
