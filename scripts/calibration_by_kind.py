#!/usr/bin/env python3
"""The calibration figures by kind: `preflight forecast --calibrate --json`'s
leave-one-corpus-out rows joined to the battery specs' kinds (calibration_battery.py --by-kind).
Python 3 standard library only."""

import json


def battery_and_target(row_name):
    """(battery, target) in a row's name ("calibration:py-asyncio (label)"); battery None when
    the name carries none."""
    battery, name = row_name.split(":", 1) if ":" in row_name else (None, row_name)
    return battery, name.split(" (", 1)[0]


def target_of(row_name):
    """The spec's target name in a row's name ("calibration:py-asyncio (label)")."""
    return battery_and_target(row_name)[1]


def by_kind(specs, held_out):
    """Per kind: targets, how many did not pay (net <= 0 or never caught up), and of those how
    many the held-out forecast caught (random), abstained on, missed (curate); and of those that
    paid, how many it curated. specs: one battery spec or several (a ledger may hold the trials
    of several batteries; a row's battery is the prefix of its name)."""
    specs = [specs] if isinstance(specs, dict) else specs
    kinds = {}
    for spec in specs:
        for t in spec["targets"]:
            kinds[(spec.get("name", "calibration"), t["name"])] = t["kind"]
            kinds.setdefault((None, t["name"]), t["kind"])
    out = {}
    for row in held_out["rows"]:
        kind = kinds.get(battery_and_target(row["target"]), "unknown")
        k = out.setdefault(kind, {"targets": 0, "did_not_pay": 0, "caught": 0, "abstained": 0,
                                  "missed": 0, "paid_curated": 0, "never_caught_up": 0})
        k["targets"] += 1
        paid = row["net"] is not None and row["net"] > 0
        k["never_caught_up"] += row["net"] is None
        if paid:
            k["paid_curated"] += row["verdict"] == "curate"
            continue
        k["did_not_pay"] += 1
        k[{"random": "caught", "curate": "missed"}.get(row["verdict"], "abstained")] += 1
    return out


def print_by_kind(spec_paths, calibrate_json, kinds):
    """Prints the table by kind, the kinds in the order given (then any unknown)."""
    specs = []
    for path in spec_paths:
        with open(path, encoding="utf-8") as f:
            specs.append(json.load(f))
    with open(calibrate_json, encoding="utf-8") as f:
        doc = json.load(f)
    table = by_kind(specs, doc["held_out"])
    print("| kind | targets | did not pay (never caught up) | caught (random) | abstained | "
          "missed (curate) | paid and curated |")
    print("|---|---|---|---|---|---|---|")
    total = {}
    for kind in tuple(kinds) + tuple(sorted(k for k in table if k not in kinds)):
        if kind not in table:
            continue
        k = table[kind]
        for key, value in k.items():
            total[key] = total.get(key, 0) + value
        print("| %s | %d | %d (%d) | %d | %d | %d | %d of %d |" % (
            kind, k["targets"], k["did_not_pay"], k["never_caught_up"], k["caught"],
            k["abstained"], k["missed"], k["paid_curated"], k["targets"] - k["did_not_pay"]))
    print("| all | %d | %d (%d) | %d | %d | %d | %d of %d |" % (
        total["targets"], total["did_not_pay"], total["never_caught_up"], total["caught"],
        total["abstained"], total["missed"], total["paid_curated"],
        total["targets"] - total["did_not_pay"]))
    return 0
