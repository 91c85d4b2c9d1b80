"""``receval trec QRELS RUN``: trec_eval's flags, measure names and exact output layout."""

from __future__ import annotations

import argparse

from .common import Formatter, add_debug_flags, emit, example_epilog

EXAMPLES = [
    "receval trec qrels.txt run.txt                       # trec_eval's default measures",
    "receval trec qrels.txt run.txt -m map -m ndcg_cut.10 -m P.5",
    "receval trec qrels.txt run.txt -m all_trec -q        # every measure, per query too",
    "receval trec qrels.txt run.txt -m P.5,10 -c -l 2 -M 100",
    "receval trec qrels.txt.gz run.txt.gz -m 'ndcg.1=1,2=3' -m 'utility.2,-1,0,0'",
    "receval trec --ndeval qrels.diversity.txt run.txt     # ndeval's CSV (intent-aware)",
    "receval trec --ndeval --alpha 0.3 --traditional -c qrels.diversity.txt run.txt",
]


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "trec", help="trec_eval-compatible evaluation (same flags, names and output)",
        description="Evaluate a TREC run against TREC qrels and print trec_eval's layout "
                    "(measure<TAB>qid|all<TAB>value), so that a script calling trec_eval can "
                    "switch by changing the program name. Measures: trec_eval names with "
                    "parameters (P.5,10 iprec_at_recall..1,.5 ndcg.1=2 utility.1,-1,0,0 ...) "
                    "and the sets 'official' (default) and 'all_trec' (every measure of trec_eval's "
                    "all_trec set is supported; -q output is identical to trec_eval 9.0.8's).",
        epilog=example_epilog(EXAMPLES), formatter_class=Formatter,
    )
    p.add_argument("qrels", help="qrels file 'qid iter docno rel' (plain or .gz); with "
                   "--ndeval, subtopic qrels 'topic subtopic docno judgment'")
    p.add_argument("run", help="run file 'qid Q0 docno rank score tag' (plain or .gz)")
    p.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE",
                   help="measure or set (repeatable): map, P.5,10, ndcg_cut.10, all_trec, ...")
    p.add_argument("-q", action="store_true", dest="per_query",
                   help="print the value of every query as well as 'all'")
    p.add_argument("-c", action="store_true", dest="complete",
                   help="average over every qrels query (queries missing from the run count 0)")
    p.add_argument("-l", type=float, default=1, dest="level", metavar="LEVEL",
                   help="relevance level: rel >= LEVEL is relevant (default 1)")
    p.add_argument("-M", type=int, default=None, dest="max_docs", metavar="N",
                   help="evaluate only the first N documents of each query")
    p.add_argument("-N", type=float, default=0.0, dest="num_docs", metavar="N",
                   help="number of documents in the collection (utility's 4th coefficient)")
    p.add_argument("-n", action="store_true", dest="no_summary",
                   help="print no 'all' summary (with -q: per-query values only)")
    nd = p.add_argument_group(
        "ndeval (intent-aware diversity, the TREC Web track's ndeval 4.5)",
        "--ndeval prints ndeval's CSV (ERR-IA, nERR-IA, alpha-DCG, alpha-nDCG @5,10,20, NRBP, "
        "nNRBP, MAP-IA, P-IA, strec) for every run topic and its amean row; -c and -M keep "
        "their meaning, the run is ordered by its rank column unless --traditional")
    nd.add_argument("--ndeval", action="store_true",
                    help="read subtopic qrels and print ndeval's measures in ndeval's layout")
    nd.add_argument("--alpha", type=float, default=0.5,
                    help="redundancy intolerance (ndeval -alpha; default 0.5)")
    nd.add_argument("--beta", type=float, default=0.5,
                    help="NRBP's patience (ndeval -beta; default 0.5)")
    nd.add_argument("--traditional", action="store_true",
                    help="order the run by score, then docno descending (ndeval -traditional)")
    add_debug_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..io.files import read_trec_qrels, read_trec_run
    from ..trec.evaluate import trec_eval
    from ..trec.measures import parse_measures
    from .common import check_not_empty

    if args.ndeval:
        return _ndeval(args)
    if args.traditional or args.alpha != 0.5 or args.beta != 0.5:
        from ..errors import InputError

        raise InputError("--alpha, --beta and --traditional are ndeval's options: add "
                         "--ndeval.")
    measures = args.measures or ["official"]
    parse_measures(measures)  # check the names before reading the files

    qrels = read_trec_qrels(args.qrels)
    run_df = read_trec_run(args.run)
    check_not_empty(qrels, args.qrels, "qrels")
    check_not_empty(run_df, args.run, "run")
    level = int(args.level) if float(args.level).is_integer() else args.level
    res = trec_eval(qrels, run_df, measures, level=level, complete=args.complete,
                    max_docs=args.max_docs, num_docs=args.num_docs)
    lines = res.lines(per_query=args.per_query, summary=not args.no_summary)
    if lines:
        emit("\n".join(lines), None)
    return 0


def _ndeval(args: argparse.Namespace) -> int:
    from ..errors import InputError
    from ..io.files import read_trec_run
    from ..trec.ndeval import ndeval
    from .common import check_not_empty

    refused = [flag for flag, on in (("-m", args.measures), ("-q", args.per_query),
                                     ("-l", args.level != 1), ("-N", args.num_docs),
                                     ("-n", args.no_summary)) if on]
    if refused:
        raise InputError(f"--ndeval prints ndeval's fixed measures and layout; {refused[0]} "
                         "does not apply (ndeval takes -c, -M, --alpha, --beta and "
                         "--traditional).")
    run_df = read_trec_run(args.run)
    check_not_empty(run_df, args.run, "run")
    res = ndeval(args.qrels, run_df, alpha=args.alpha, beta=args.beta,
                 traditional=args.traditional, complete=args.complete, depth=args.max_docs)
    emit("\n".join(res.lines()), None)
    return 0
