"""What `pallium route` needs to recommend each team tool, keyed by its command (read by `_tool`)."""

from __future__ import annotations

from kernel.tool import Route

ROUTES = {
    "team start": Route(
        phrasings=(
            "start an agent team to find the root cause of the checkout hang",
            "convene a team of agents on this goal",
            "spin up a lead and teammates for a debugging session",
            "create a team with the parallel-review template",
            "assemble a team of collaborating agents",
        ),
        arguments={"goal": "task"},
    ),
    "team template list": Route(
        phrasings=(
            "list team templates",
            "which team rosters are available",
            "show the built-in team templates",
        ),
    ),
    "team template show": Route(
        phrasings=(
            "show the parallel-review team template",
            "what members does the adversarial-debate template have",
            "print one team template's roster",
        ),
        arguments={"name": "name"},
    ),
    "team spawn": Route(
        phrasings=(
            "spawn a reviewer on the team",
            "add a teammate to trace the failure",
            "add a member to the team with a role",
            "bring another agent into the team",
        ),
        arguments={"team": "team", "name": "name"},
        needs=("team",),
    ),
    "team join": Route(
        phrasings=(
            "join the team myself",
            "add me to the team as an external member",
            "let me take part in the team's mail",
        ),
        arguments={"team": "team"},
        needs=("team",),
    ),
    "team tasks add": Route(
        phrasings=(
            "put a task on the team's board",
            "add a task for the team with dependencies",
            "create a board task for the team",
        ),
        arguments={"team": "team", "title": "quoted"},
        needs=("team",),
    ),
    "team tasks list": Route(
        phrasings=(
            "show the team's task board",
            "list the team's tasks and their owners",
            "which team tasks are still pending",
        ),
        arguments={"team": "team"},
        needs=("team",),
    ),
    "team tasks claim": Route(
        phrasings=(
            "claim a task on the team board",
            "take the pending team task",
            "assign the board task to me",
        ),
        arguments={"team": "team"},
        needs=("team",),
    ),
    "team tasks complete": Route(
        phrasings=(
            "complete the team task with its result",
            "mark the board task done with evidence",
            "finish the task I hold on the team board",
        ),
        arguments={"team": "team"},
        needs=("team",),
    ),
    "team send": Route(
        phrasings=(
            "send a message to the reviewer on the team",
            "mail a teammate",
            "tell the team lead something through the mailbox",
        ),
        arguments={"team": "team", "body": "quoted"},
        needs=("team",),
    ),
    "team inbox": Route(
        phrasings=("read the team's mailbox", "show my team inbox", "what mail did the teammates send"),
        arguments={"team": "team"},
        needs=("team",),
    ),
    "team nudge": Route(
        phrasings=(
            "nudge the teammate to take a turn",
            "poke a team member to work",
            "ask a member to take another turn",
        ),
        arguments={"team": "team", "member": "name"},
        needs=("team",),
    ),
    "team list": Route(
        phrasings=(
            "list the agent teams",
            "which teams are there",
            "find the team I started yesterday",
            "show all teams and their status",
        ),
    ),
    "team status": Route(
        phrasings=(
            "status of the team",
            "how is the agent team doing",
            "which teammates are idle, running or stale",
            "show the team's members, board and patches",
            "the team's members and what they cost so far",
        ),
        arguments={"team": "team"},
        needs=("team",),
    ),
    "team run": Route(
        phrasings=(
            "run the team's rounds",
            "let the team work until it is done",
            "make the teammates take their turns",
            "run the agent team",
        ),
        arguments={"team": "team"},
        needs=("team",),
    ),
    "team approve": Route(
        phrasings=(
            "approve the teammate's plan",
            "accept the member's plan so it can work",
            "let the planning member proceed",
        ),
        arguments={"team": "team", "member": "name"},
        needs=("team",),
    ),
    "team reject": Route(
        phrasings=(
            "reject the teammate's plan with feedback",
            "send the member's plan back for revision",
            "refuse a member's plan",
        ),
        arguments={"team": "team", "member": "name"},
        needs=("team",),
    ),
    "team gate set": Route(
        phrasings=(
            "set a gate on the team's tasks",
            "require approval for team task completion",
            "clear the team's gate",
            "put a gate on the team so a rule must hold before work counts",
            "hold the team to a rule: tests must pass",
        ),
        arguments={"team": "team"},
        needs=("team",),
    ),
    "team stop": Route(
        phrasings=("stop the team", "end the agent team's work", "halt the team after this round"),
        arguments={"team": "team"},
        needs=("team",),
    ),
    "team attach": Route(
        phrasings=(
            "reattach to the team after a crash",
            "recover the team's interrupted turns",
            "reconnect to the agent team",
        ),
        arguments={"team": "team"},
        needs=("team",),
    ),
    "team member stop": Route(
        phrasings=(
            "stop one team member",
            "halt the reviewer teammate",
            "take a member off the team's turns",
            "take the reviewer member off the team",
            "pull one agent off the team",
        ),
        arguments={"team": "team", "member": "name"},
        needs=("team",),
    ),
    "team member restart": Route(
        phrasings=(
            "restart the stuck teammate",
            "bring a failed team member back",
            "restart a stopped member of the team",
        ),
        arguments={"team": "team", "member": "name"},
        needs=("team",),
    ),
    "team member steer": Route(
        phrasings=(
            "steer the teammate with a directive",
            "redirect a team member's work",
            "give a member new instructions from the lead",
        ),
        arguments={"team": "team", "member": "name", "directive": "quoted"},
        needs=("team",),
    ),
    "team apply": Route(
        phrasings=(
            "apply the team's patches",
            "bring the team's changes into my tree",
            "land the teammates' staged edits",
        ),
        arguments={"team": "team"},
        needs=("team",),
        prepare="team status",
    ),
    "team revert": Route(
        phrasings=(
            "revert the team's applied patches",
            "undo what the team applied",
            "take the team's changes back out",
        ),
        arguments={"team": "team"},
        needs=("team",),
        prepare="team status",
    ),
    "team tasks release": Route(
        phrasings=(
            "release the task a stuck member holds",
            "give the claimed task back to the board",
            "unclaim a team task",
        ),
        arguments={"team": "team"},
        needs=("team",),
    ),
    "team diff": Route(
        phrasings=(
            "show the diff of the team's patches",
            "review what the team members changed",
            "what did the editor member change",
        ),
        arguments={"team": "team"},
        needs=("team",),
    ),
    "team budget": Route(
        phrasings=(
            "give the team more budget",
            "raise the team's spending limit",
            "cap the team's provider calls",
        ),
        arguments={"team": "team"},
        needs=("team",),
    ),
    "team resume": Route(
        phrasings=(
            "resume the stopped team",
            "restart the parked agent team",
            "continue a team that was stopped",
        ),
        arguments={"team": "team"},
        needs=("team",),
    ),
    "team watch": Route(
        phrasings=(
            "watch the team work live",
            "follow the agent team's progress",
            "live view of the team's members and board",
        ),
        arguments={"team": "team"},
        needs=("team",),
    ),
}
