"""Where a student's code runs: every process the grader starts, the sandbox, and the messages out of it.

It owns the limits of a run (:mod:`.limits`), the processes the grader starts
(:mod:`.processes`: die with it, capped, killed with their tree, forked),
bubblewrap's set-up (:mod:`.sandbox`) and what applies the limits inside it
(:mod:`.confine`), the warm template that forks each student's process
(:mod:`.warm` from the grader, :mod:`.template` inside), the student's process
seen from the grader (:mod:`.student_process`) and from inside
(:mod:`.student`), and the one message format between them (:mod:`.wire`).

It is the ground floor: it may import nothing of the autograder outside
itself, so what runs inside the sandbox (:mod:`.student`, :mod:`.template`,
:mod:`.confine`) loads no grading code.
"""
