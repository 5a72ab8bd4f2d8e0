#!/usr/bin/env python3
"""Build the ForceBench Studio sample project data.

This script is the single source of truth for the sample candidate rows. It holds every row as
Python data and writes, from that one list:

  candidates.csv    RFC 4180 CSV (csv module, QUOTE_MINIMAL), UTF-8, fixed header
  candidates.jsonl  the same rows in the same order, one JSON object per line
  README.md         description, column list, counts and the answer key for flawed rows

Run it from anywhere:  python3 sample-data/build_sample.py
It uses only the standard library and no randomness, so repeated runs give byte-identical files.

To add a row, append a `row(...)` call in ROWS below. Ids (fb-NNNN) and group ids (g-NNN) are
assigned in list order; rows that pass the same `group=` key share a group id, so keep their
context and passage identical. A deliberately flawed row carries `flaw=(boundary_type, note)`;
the flaw is written only to the README answer key, never to the CSV or JSONL.
"""

import csv
import io
import json
import os
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))

COLUMNS = [
    "id", "group_id", "source_dataset", "source_id", "context", "passage", "evidence_span",
    "calibrated_claim", "raised_claim", "repair", "rationale", "axis", "severity",
    "construction_family",
]
# How a raised claim was made from its calibrated claim, read from the two wordings (so that the
# families follow the rows, and results can be broken down and audited by them).
FAMILIES = {
    "deletion": "the raised claim drops words of the calibrated one (a hedge, a bound, a date) and adds none",
    "substitution": "the raised claim swaps one or two words of the calibrated one, at the same length",
    "rewrite": "the raised claim rewords the calibrated one more freely",
}


def words(text):
    return [w.strip(".,;:!?()\"'").lower() for w in text.split() if w.strip(".,;:!?()\"'")]


def family_of(calibrated, raised):
    c, r = words(calibrated), words(raised)
    if set(r) <= set(c):
        return "deletion"
    if len(c) == len(r) and sum(1 for a, b in zip(c, r) if a != b) <= 2:
        return "substitution"
    return "rewrite"
AXES = ["relation", "modality", "scope", "temporal", "numeric"]
SOURCES = ["ExpertQA", "AttributedQA", "GaRAGe", "LFQA", "Stanford-GenSearch"]
BOUNDARY_TYPES = [
    "unsupported_calibrated_claim", "raised_claim_supported", "nonlocal_rewrite",
    "multiple_force_shifts", "unrelated_addition", "needs_outside_knowledge",
    "no_decisive_span", "duplicate", "safe_or_underclaimed", "ambiguous",
]

EQA, AQA, GAR, LFQA, SGS = SOURCES

ROWS = []


def row(src, sid, context, passage, span, calibrated, raised, repair, rationale, axis, severity,
        group=None, flaw=None):
    ROWS.append(dict(
        source_dataset=src, source_id=sid, context=context, passage=passage,
        evidence_span=span, calibrated_claim=calibrated, raised_claim=raised, repair=repair,
        rationale=rationale, axis=axis, severity=severity, _group=group, _flaw=flaw,
    ))


# ---------------------------------------------------------------------------------------------
# Shared passages (rows built from the same context and passage share a group)
# ---------------------------------------------------------------------------------------------

HARLOW_CTX = "How fast is Harlow Instruments growing?"
HARLOW = (
    "In its results for the quarter ended 30 September 2023, Harlow Instruments reported revenue "
    "of roughly $412 million, up about 8% from a year earlier, driven mainly by its metrology "
    "division. The company guided for full-year growth of 6 to 7 percent and said the figures "
    "remain unaudited."
)

PERIDOT_CTX = "Does talvinex reduce asthma attacks?"
PERIDOT = (
    "The PERIDOT trial randomized 1,140 adults with moderate persistent asthma to the inhaled "
    "drug talvinex or placebo for 52 weeks. Talvinex reduced the annual rate of severe "
    "exacerbations by 28% to 39%, depending on baseline eosinophil count, with the largest benefit "
    "in patients with high counts. Quality-of-life scores improved slightly, a change the "
    "investigators called possibly meaningful. Children under 18 and patients with chronic "
    "obstructive pulmonary disease were excluded."
)

HALVORSEN_CTX = "Are three-year non-compete clauses enforceable?"
HALVORSEN = (
    "In Halvorsen v. Pike Logistics, the Ninth District Court of Appeals held that a non-compete "
    "clause barring a warehouse supervisor from any logistics job for three years was "
    "unenforceable. The panel called the clause \"broader than any legitimate business interest, "
    "and therefore void,\" but expressly limited its holding to agreements governed by the "
    "district's 2019 employment statute. Two other districts have upheld similar clauses."
)

TESSALY_CTX = "How fast is the Tessaly Glacier melting?"
TESSALY = (
    "A reconstruction of the Tessaly Glacier's mass balance estimates that it lost between 18 and "
    "24 metres of ice thickness from 1990 to 2020. Under a moderate-emissions scenario, the "
    "authors project that the glacier could lose most of its remaining volume by 2080, although "
    "future snowfall is highly uncertain. The reconstruction combines aerial surveys from 1990 and "
    "2005 with satellite altimetry."
)

CURLEW_CTX = "How long is the bar-tailed curlew's autumn migration flight?"
CURLEW = (
    "Satellite tracking of 46 bar-tailed curlews tagged in the Wadden estuary showed that most "
    "birds completed their autumn crossing to West Africa in a single non-stop flight lasting "
    "roughly four to six days. Two birds broke the journey on the Iberian coast. The tags "
    "recorded position but not altitude."
)

ZURICH_CTX = "How important was weaving in late medieval Zürich?"
ZURICH = (
    "The guild registers of Zürich list roughly 140 master weavers active in the city around "
    "1480 — more than for any other craft in that decade. Historians have proposed that "
    "competition from rural workshops may have driven the trade's later decline, but the "
    "registers themselves give no reasons for it."
)

CALDER_CTX = "Should people over 65 get a pneumococcal booster every year?"
CALDER = (
    "Regional guidance from the Calder Health Board advises adults over 65 to consider an annual "
    "pneumococcal booster if they live in residential care, citing outbreaks in three care homes "
    "during the 2022–23 winter. For older adults living independently, the board found the "
    "evidence insufficient to make a recommendation either way."
)

ORCHARD_CTX = "What changed in version 5.0 of the Orchard database driver?"
ORCHARD = (
    "Orchard 5.0 adds connection pooling, which in the maintainers' benchmarks cut median query "
    "latency by 20–35% for read-heavy workloads on PostgreSQL 14.\n\n"
    "Known issues: pooling is experimental on MySQL targets and may drop idle connections under "
    "high concurrency. The 4.x branch will receive security fixes until June 2025."
)

EASTGATE_CTX = "Did raising the minimum wage cost teenagers jobs?"
EASTGATE = (
    "An Eastgate Policy Institute analysis of 212 counties found that counties which raised their "
    "minimum wage between 2015 and 2019 saw teen employment change by between −1.2% and +0.4% "
    "relative to neighbouring counties, a range the authors describe as statistically "
    "indistinguishable from zero. The period also coincided with strong national job growth."
)

BRIGHTLINE_CTX = "Does small-group phonics tutoring help young readers?"
BRIGHTLINE = (
    "In the Brightline tutoring pilot, 310 third-graders in four rural schools who received three "
    "sessions a week of small-group phonics tutoring gained about two months of additional reading "
    "progress over a school year compared with matched peers. Schools self-selected into the "
    "pilot, and teachers at participating schools also received extra planning time."
)

MARSH_CTX = "Is the rebuilt Marsh Lane footbridge safe for crowds?"
MARSH = (
    "Load tests on the rebuilt Marsh Lane footbridge in 2023 showed deflections within design "
    "limits at 1.5 times the rated crowd load. The inspection report recommends re-testing after "
    "the first winter, because the new composite deck has no service history in freeze-thaw "
    "conditions and its long-term stiffness may decline."
)

# ---------------------------------------------------------------------------------------------
# Rows, in release order
# ---------------------------------------------------------------------------------------------

row(EQA, "expertqa-med-0412",
    "Does drinking green tea lower the risk of stroke?",
    "In the Hokuriku Cohort Study, a prospective survey of 41,300 adults followed for eleven "
    "years, participants who drank four or more cups of green tea a day had a lower incidence of "
    "ischemic stroke than those who drank less than one cup. The difference persisted after "
    "adjustment for age, smoking and blood pressure. The authors caution that heavy tea drinkers "
    "also differed in diet and exercise, and that the design cannot establish whether tea itself "
    "is protective.",
    "the design cannot establish whether tea itself is protective",
    "In the Hokuriku Cohort Study, drinking four or more cups of green tea a day was associated "
    "with a lower incidence of ischemic stroke.",
    "In the Hokuriku Cohort Study, drinking four or more cups of green tea a day lowered the "
    "incidence of ischemic stroke.",
    "In the Hokuriku Cohort Study, drinking four or more cups of green tea a day was associated "
    "with a lower incidence of ischemic stroke, though the design cannot show that tea is "
    "protective.",
    "The passage licenses an association between heavy green tea drinking and fewer ischemic "
    "strokes, but the raised claim states stronger that the tea itself lowered stroke incidence.",
    "relation", 2)

row(AQA, "aqa-00931",
    "Why was the harbour at Velmora abandoned?",
    "Excavations at the harbour of Velmora uncovered thick layers of silt dated to the early "
    "fourteenth century. The excavators suggest that silting may have made the harbour unusable "
    "for larger merchant ships, though a shift in trade toward the northern ports could also "
    "explain the decline. No written record of the abandonment survives.",
    "silting may have made the harbour unusable",
    "Excavators suggest that silting may have made Velmora's harbour unusable for larger merchant "
    "ships in the fourteenth century.",
    "Silting made Velmora's harbour unusable for larger merchant ships in the fourteenth century.",
    "Excavators suggest that silting may have made Velmora's harbour unusable for larger merchant "
    "ships, though shifting trade routes are another possible explanation.",
    "The passage licenses silting as a possible reason the harbour became unusable, but the "
    "raised claim states stronger that silting definitely made it unusable.",
    "modality", 2)

row(GAR, "garage-04417",
    "Does the Lumen 3.2 update fix the memory leak?",
    "Lumen 3.2.0 release notes: Fixed a memory leak in the image cache that caused resident memory "
    "to grow during long sessions on Linux builds using the Wayland backend. The X11 and Windows "
    "backends use a different cache path and are unaffected by this change. Users on macOS should "
    "continue to restart the app after large imports until 3.3.",
    "on Linux builds using the Wayland backend",
    "Lumen 3.2.0 fixed an image-cache memory leak on Linux builds using the Wayland backend.",
    "Lumen 3.2.0 fixed an image-cache memory leak on all platforms.",
    "Lumen 3.2.0 fixed an image-cache memory leak on Linux builds using the Wayland backend; "
    "macOS users are still advised to restart after large imports.",
    "The passage licenses a leak fix for Linux Wayland builds, but the raised claim states "
    "stronger a fix on every platform.",
    "scope", 2)

row(LFQA, "lfqa-2291",
    "How many ferry routes serve the island of Rannsey?",
    "As of the 2021 timetable, the island of Rannsey was served by three year-round ferry routes, "
    "all departing from the mainland port of Skellvik. A fourth, summer-only route was suspended "
    "in 2020, and its future was under review by the regional transport authority.",
    "As of the 2021 timetable",
    "As of the 2021 timetable, Rannsey was served by three year-round ferry routes, all from "
    "Skellvik.",
    "Rannsey is served by three year-round ferry routes, all from Skellvik.",
    "According to the 2021 timetable, Rannsey had three year-round ferry routes, all from "
    "Skellvik.",
    "The passage licenses a route count tied to the 2021 timetable, but the raised claim states "
    "stronger that the island currently has three routes.",
    "temporal", 2)

row(SGS, "gensearch-0317",
    "How long do the new fluxonium qubits stay coherent?",
    "The fluxonium qubits fabricated in the study showed energy-relaxation times between 0.9 and "
    "1.3 milliseconds across the twelve devices measured, with most clustering near the upper end "
    "of the range. The team attributes the improvement over earlier designs to a cleaner "
    "substrate surface.",
    "between 0.9 and 1.3 milliseconds",
    "The study's fluxonium qubits showed energy-relaxation times between 0.9 and 1.3 "
    "milliseconds.",
    "The study's fluxonium qubits showed energy-relaxation times of 1.3 milliseconds.",
    "The study's fluxonium qubits showed energy-relaxation times between 0.9 and 1.3 "
    "milliseconds across twelve devices.",
    "The passage licenses a range of relaxation times across devices, but the raised claim states "
    "stronger a single value at the top of that range.",
    "numeric", 1)

row(EQA, "expertqa-law-0088",
    "Did the landlord break the law by keeping the deposit?",
    "The appellate court held that the landlord's failure to return the security deposit within "
    "thirty days violated the state tenancy statute, and it ordered the deposit returned with "
    "statutory interest. The court declined to award punitive damages, finding no evidence of bad "
    "faith.",
    "violated the state tenancy statute",
    "The appellate court found that the landlord's late return of the deposit may have violated "
    "the state tenancy statute.",
    "The appellate court held that the landlord's late return of the deposit violated the state "
    "tenancy statute.",
    "The appellate court found that the landlord's late return of the deposit may have violated "
    "the state tenancy statute.",
    "The passage licenses a possible statutory violation, but the raised claim states stronger "
    "that the court settled the violation as a holding.",
    "modality", 1,
    flaw=("raised_claim_supported",
          "The passage says the court held that the late return violated the statute, so the "
          "raised claim is licensed; the calibrated claim is the weaker one."))

row(AQA, "aqa-01204",
    "Is the antihistamine merovane linked to falls in older adults?",
    "In a case-control analysis of 6,200 adults aged 70 and over, recent use of the sedating "
    "antihistamine merovane was associated with 1.6 times higher odds of a fall requiring "
    "emergency care. Because the data came from prescription records, the investigators could not "
    "account for the conditions the drug was prescribed for, and they describe the result as a "
    "signal for further study rather than evidence of a causal effect.",
    "a signal for further study rather than evidence of a causal effect",
    "Recent merovane use was associated with higher odds of serious falls among adults aged 70 "
    "and over.",
    "Recent merovane use causes serious falls among adults aged 70 and over.",
    "Recent merovane use was associated with higher odds of serious falls among adults aged 70 "
    "and over, a signal the investigators say needs further study.",
    "The passage licenses an association between merovane and serious falls, but the raised "
    "claim states stronger that the drug causes those falls.",
    "relation", 3)

row(GAR, "garage-01950",
    "Does daily retrieval practice raise maths scores?",
    "A randomized study in 48 Year 7 classrooms across two school districts found that ten "
    "minutes of daily retrieval practice raised end-of-term mathematics scores by a small but "
    "reliable margin compared with re-reading. The authors did not test other year groups or "
    "subjects.",
    "48 Year 7 classrooms",
    "In a randomized study of Year 7 classrooms, daily retrieval practice modestly raised "
    "end-of-term mathematics scores compared with re-reading.",
    "In a randomized study, daily retrieval practice modestly raised end-of-term mathematics "
    "scores for secondary-school students compared with re-reading.",
    "In a randomized study of Year 7 classrooms, daily retrieval practice modestly raised "
    "end-of-term mathematics scores compared with re-reading.",
    "The passage licenses a gain measured in Year 7 classrooms, but the raised claim states "
    "stronger a gain for secondary-school students in general.",
    "scope", 2)

row(EQA, "expertqa-fin-0193", HARLOW_CTX, HARLOW,
    "up about 8%",
    "Harlow Instruments reported quarterly revenue up about 8% from a year earlier.",
    "Harlow Instruments reported quarterly revenue up 8.3% from a year earlier.",
    "Harlow Instruments reported quarterly revenue up about 8% from a year earlier.",
    "The passage licenses growth of about 8%, but the raised claim states stronger a precise "
    "8.3% figure.",
    "numeric", 2, group="harlow")

row(EQA, "expertqa-fin-0193", HARLOW_CTX, HARLOW,
    "the quarter ended 30 September 2023",
    "For the quarter ended 30 September 2023, Harlow Instruments reported revenue of roughly $412 "
    "million.",
    "Harlow Instruments' quarterly revenue is roughly $412 million.",
    "For the quarter ended 30 September 2023, Harlow Instruments reported unaudited revenue of "
    "roughly $412 million.",
    "The passage licenses a revenue figure for one dated quarter, but the raised claim states "
    "stronger a current, undated quarterly revenue level.",
    "temporal", 2, group="harlow")

row(LFQA, "lfqa-0873",
    "Can octopuses recognise individual people?",
    "In a small captive study, three of four octopuses approached a keeper who had fed them more "
    "often than a keeper who had prodded them with a bristle brush, even when both wore identical "
    "uniforms. The researchers say the results suggest the animals may distinguish individual "
    "people, but caution that cues such as gait or scent were not controlled.",
    "suggest the animals may distinguish individual people",
    "A small captive study suggests octopuses may distinguish individual people.",
    "A small captive study shows that octopuses distinguish individual people.",
    "A small captive study suggests octopuses may distinguish individual people, though cues "
    "such as gait or scent were not controlled.",
    "The passage licenses a suggestion that octopuses may tell people apart, but the raised claim "
    "states stronger that the study shows they do.",
    "modality", 2)

row(SGS, "gensearch-0529",
    "Is the tap water in Dunmore safe to drink?",
    "On 14 March 2022 the Dunmore water utility issued a boil-water advisory for the eastern "
    "districts after a main break allowed untreated water into the network. The advisory was to "
    "stay in place until laboratory tests confirmed two consecutive clean samples.",
    "On 14 March 2022",
    "On 14 March 2022, Dunmore's water utility issued a boil-water advisory for the eastern "
    "districts after a main break.",
    "Dunmore's eastern districts are under a boil-water advisory after a main break.",
    "On 14 March 2022, Dunmore's water utility issued a boil-water advisory for the eastern "
    "districts, to last until two consecutive clean samples.",
    "The passage licenses an advisory issued on a specific date in 2022, but the raised claim "
    "states stronger that the advisory is in force now.",
    "temporal", 3)

row(EQA, "expertqa-law-0231",
    "Do employers in Ardenne have to provide standing desks?",
    "The Ardenne Workplace Health Code recommends adjustable-height workstations for staff who "
    "spend most of the working day at a desk. This guidance is advisory; the code's mandatory "
    "provisions on office equipment cover only lighting and screen glare.",
    "This guidance is advisory",
    "Ardenne's Workplace Health Code recommends adjustable-height workstations for desk-bound "
    "staff.",
    "Ardenne's Workplace Health Code requires adjustable-height workstations for desk-bound "
    "staff.",
    "Ardenne's Workplace Health Code recommends, but does not require, adjustable-height "
    "workstations for desk-bound staff.",
    "The passage licenses an advisory recommendation, but the raised claim states stronger a "
    "legal obligation on employers.",
    "relation", 2)

row(AQA, "aqa-02118",
    "Is gut bacteria linked to depression?",
    "In stool samples from 1,050 adults in the Lindgren Health Survey, lower abundance of the "
    "bacterial genus Coprococcus was associated with higher depression scores, even after "
    "adjusting for antidepressant use. The authors stress that the design cannot show whether "
    "changes in gut bacteria contribute to depression or result from it.",
    "cannot show whether changes in gut bacteria contribute to depression or result from it",
    "In the Lindgren Health Survey, lower Coprococcus abundance was associated with higher "
    "depression scores.",
    "In the Lindgren Health Survey, lower Coprococcus abundance contributed to higher depression "
    "scores.",
    "In the Lindgren Health Survey, lower Coprococcus abundance was associated with higher "
    "depression scores; the direction of the link is unknown.",
    "The passage licenses an association between low Coprococcus and depression scores, but the "
    "raised claim states stronger that the bacteria contributed to depression.",
    "relation", 2)

row(GAR, "garage-07731",
    "Does venrixaban prevent repeat strokes?",
    "The CALDERA study tested the oral anticoagulant venrixaban in 2,300 adults with atrial "
    "fibrillation who had previously had a stroke. Over two years, the rate of recurrent stroke "
    "was about 30% lower than with aspirin. Patients with mechanical heart valves were excluded.",
    "adults with atrial fibrillation who had previously had a stroke",
    "In the CALDERA study, venrixaban lowered recurrent stroke by about 30% compared with aspirin "
    "in adults with atrial fibrillation and a prior stroke.",
    "In the CALDERA study, venrixaban lowered recurrent stroke by about 30% compared with aspirin "
    "in adults with mechanical heart valves.",
    "In the CALDERA study, venrixaban lowered recurrent stroke by about 30% compared with aspirin "
    "in adults with atrial fibrillation and a prior stroke.",
    "The passage licenses a benefit in adults with atrial fibrillation after a stroke, but the "
    "raised claim states stronger a benefit in patients with mechanical heart valves.",
    "scope", 3,
    flaw=("nonlocal_rewrite",
          "The raised claim swaps the study population for a different group that the passage "
          "says was excluded; that changes the entity rather than widening the same scope."))

row(AQA, "aqa-03356",
    "Has the XENITH-2 detector found dark matter?",
    "The XENITH-2 detector recorded a small excess of low-energy electron-recoil events over its "
    "expected background during its first science run. The collaboration reports that the excess "
    "could arise from trace tritium contamination or from a new particle interaction, and says "
    "more data are needed to tell the two apart.",
    "could arise from trace tritium contamination or from a new particle interaction",
    "XENITH-2 recorded an excess of low-energy events that could come from tritium contamination "
    "or from a new particle interaction.",
    "XENITH-2 recorded an excess of low-energy events that comes from a new particle "
    "interaction.",
    "XENITH-2 recorded an excess of low-energy events whose origin, tritium contamination or a new "
    "interaction, is not yet settled.",
    "The passage licenses a new interaction as one possible source of the excess, but the raised "
    "claim states stronger that the excess definitely comes from one.",
    "modality", 3)

row(GAR, "garage-02604",
    "How much notice must a Westmark landlord give before raising rent?",
    "Under Westmark's 2021 Residential Tenancies Amendment, landlords must give 90 days' written "
    "notice before a rent increase for periodic tenancies. Fixed-term leases continue to follow "
    "the notice terms written into the lease.",
    "for periodic tenancies",
    "In Westmark, landlords must give 90 days' written notice before raising the rent on a "
    "periodic tenancy.",
    "In Westmark, landlords must give 90 days' written notice before raising the rent.",
    "In Westmark, landlords must give 90 days' written notice before raising the rent on a "
    "periodic tenancy; fixed-term leases follow their own terms.",
    "The passage licenses the 90-day rule for periodic tenancies, but the raised claim states "
    "stronger that it applies to every rent increase.",
    "scope", 2)

row(EQA, "expertqa-med-0577", PERIDOT_CTX, PERIDOT,
    "1,140 adults with moderate persistent asthma",
    "In the PERIDOT trial, talvinex reduced severe exacerbations in adults with moderate "
    "persistent asthma.",
    "In the PERIDOT trial, talvinex reduced severe exacerbations in people with asthma.",
    "In the PERIDOT trial, talvinex reduced severe exacerbations in adults with moderate "
    "persistent asthma; children were not studied.",
    "The passage licenses a benefit in adults with moderate persistent asthma, but the raised "
    "claim states stronger a benefit for people with asthma of any age or severity.",
    "scope", 2, group="peridot")

row(EQA, "expertqa-med-0577", PERIDOT_CTX, PERIDOT,
    "by 28% to 39%",
    "In the PERIDOT trial, talvinex reduced the annual rate of severe exacerbations by 28% to 39%, "
    "depending on baseline eosinophil count.",
    "In the PERIDOT trial, talvinex reduced the annual rate of severe exacerbations by 39%.",
    "In the PERIDOT trial, talvinex reduced the annual rate of severe exacerbations by 28% to 39%, "
    "depending on baseline eosinophil count.",
    "The passage licenses a reduction ranging from 28% to 39% by subgroup, but the raised claim "
    "states stronger a single 39% reduction.",
    "numeric", 2, group="peridot")

row(EQA, "expertqa-med-0577", PERIDOT_CTX, PERIDOT,
    "possibly meaningful",
    "PERIDOT investigators called talvinex's slight quality-of-life improvement possibly "
    "meaningful.",
    "PERIDOT investigators called talvinex's slight quality-of-life improvement meaningful.",
    "PERIDOT investigators called talvinex's slight quality-of-life improvement possibly "
    "meaningful.",
    "The passage licenses an improvement described as possibly meaningful, but the raised claim "
    "states stronger that it was judged meaningful outright.",
    "modality", 1, group="peridot")

row(SGS, "gensearch-0688",
    "What is the deepest constant-weight free dive?",
    "At the time of publication in August 2021, the freediving record in the constant-weight "
    "category stood at 131 metres, set in a competition in the Caribbean. The sport's governing "
    "body ratifies new records several times a year.",
    "At the time of publication in August 2021",
    "As of August 2021, the constant-weight freediving record stood at 131 metres.",
    "The constant-weight freediving record is 131 metres.",
    "As of August 2021, the constant-weight freediving record stood at 131 metres.",
    "The passage licenses a record depth as of August 2021, but the raised claim states stronger "
    "that 131 metres is the record now.",
    "temporal", 2)

row(LFQA, "lfqa-1140",
    "How many people live in the Keldor river basin?",
    "Census estimates put the population of the Keldor river basin at between 2.1 and 2.6 "
    "million. The uncertainty comes mainly from undercounting in informal settlements along the "
    "delta.",
    "between 2.1 and 2.6 million",
    "The Keldor river basin has an estimated population of 2.1 to 2.6 million.",
    "The Keldor river basin has a population of 2.6 million.",
    "Census estimates put the Keldor river basin's population at 2.1 to 2.6 million.",
    "The passage licenses a population range of 2.1 to 2.6 million, but the raised claim states "
    "stronger an exact figure of 2.6 million.",
    "numeric", 2)

row(AQA, "aqa-04412",
    "Are small manufacturers in Ravel using robots?",
    "In a 2021 survey of 1,200 small manufacturers in the Ravel region, about 40% said they "
    "planned to adopt industrial robots within five years. Cost and a lack of trained technicians "
    "were the most common reasons given for delay.",
    "about 40%",
    "In a 2021 survey, about 40% of small Ravel manufacturers said they planned to adopt "
    "industrial robots within five years.",
    "In a 2021 survey, exactly 40% of small Ravel manufacturers said they had already adopted "
    "industrial robots.",
    "In a 2021 survey, about 40% of small Ravel manufacturers said they planned to adopt "
    "industrial robots within five years.",
    "The passage licenses an approximate share of about 40%, but the raised claim states stronger "
    "an exact 40% share.",
    "numeric", 2,
    flaw=("multiple_force_shifts",
          "Besides turning 'about 40%' into an exact figure, the raised claim turns a plan to "
          "adopt robots into completed adoption (a temporal shift), so there is no single "
          "primary axis."))

row(EQA, "expertqa-med-0690",
    "Does drinking coffee help you live longer?",
    "Among 92,000 nurses followed for two decades in the Marlow Nurses' Cohort, moderate coffee "
    "drinkers had slightly lower all-cause mortality than non-drinkers. The authors write that "
    "residual confounding by health status could explain part of the difference.",
    "residual confounding by health status could explain part of the difference",
    "In the Marlow Nurses' Cohort, moderate coffee drinkers had slightly lower all-cause mortality "
    "than non-drinkers.",
    "In the Marlow Nurses' Cohort, moderate coffee drinking lowered all-cause mortality slightly "
    "compared with not drinking coffee.",
    "In the Marlow Nurses' Cohort, moderate coffee drinkers had slightly lower all-cause mortality "
    "than non-drinkers, possibly partly because of confounding.",
    "The passage licenses a mortality difference between drinkers and non-drinkers, but the "
    "raised claim states stronger that coffee drinking produced that difference.",
    "relation", 2)

row(GAR, "garage-05592",
    "Did the 2.4 update make the Wren app crash less?",
    "Crash reports for the Wren photo app fell by roughly a third in the month after version 2.4 "
    "shipped. The drop coincided with a server migration that also changed how uploads were "
    "retried.",
    "coincided with a server migration",
    "Wren's crash reports fell by roughly a third in the month after version 2.4 shipped.",
    "Wren version 2.4 cut crash reports by roughly a third in its first month.",
    "Wren's crash reports fell by roughly a third in the month after version 2.4 shipped, which "
    "was also the month of a server migration.",
    "The passage licenses a fall in crashes following the release, but the raised claim states "
    "stronger that the release itself caused the fall.",
    "relation", 1)

row(LFQA, "lfqa-0412",
    "Where does the word 'tarrow' come from?",
    "The word is first attested in a 1612 ship's inventory. Lexicographers consider it probably "
    "borrowed from a Low German term for tarred rope, though a native English formation cannot be "
    "ruled out.",
    "probably borrowed from a Low German term",
    "Lexicographers consider 'tarrow' probably borrowed from a Low German term for tarred rope.",
    "'Tarrow' was borrowed from a Low German term for tarred rope.",
    "Lexicographers consider 'tarrow' probably borrowed from a Low German term for tarred rope.",
    "The passage licenses a probable Low German origin, but the raised claim states stronger a "
    "settled etymology.",
    "modality", 1)

row(EQA, "expertqa-med-0815",
    "Is pelotriptan safe to take during pregnancy?",
    "A registry of 1,870 pregnancies exposed to the migraine drug pelotriptan in the second and "
    "third trimesters found no increase in major birth defects compared with unexposed "
    "pregnancies. First-trimester exposures were too few to analyse, and the registry authors "
    "say no conclusion can be drawn about safety early in pregnancy.",
    "in the second and third trimesters",
    "A registry found no increase in major birth defects after pelotriptan exposure in the second "
    "and third trimesters.",
    "A registry found no increase in major birth defects after pelotriptan exposure during "
    "pregnancy.",
    "A registry found no increase in major birth defects after second- and third-trimester "
    "pelotriptan exposure; first-trimester safety was not assessed.",
    "The passage licenses a reassuring result for later-trimester exposure, but the raised claim "
    "states stronger a reassuring result for exposure at any point in pregnancy.",
    "scope", 3)

row(AQA, "aqa-05067",
    "What is the tallest building in Marrowgate?",
    "Completed in 2016, the 61-storey Harbour Spire was the tallest building in Marrowgate when "
    "this guide went to press in 2018. Two taller towers had been approved by the city council "
    "but not yet started.",
    "when this guide went to press in 2018",
    "When the guide went to press in 2018, the Harbour Spire was Marrowgate's tallest building.",
    "The Harbour Spire is Marrowgate's tallest building.",
    "As of 2018, the Harbour Spire was Marrowgate's tallest building, with two taller towers "
    "approved.",
    "The passage licenses the Harbour Spire's height ranking as of 2018, but the raised claim "
    "states stronger that it is the tallest building today.",
    "temporal", 2)

row(AQA, "aqa-05210", HALVORSEN_CTX, HALVORSEN,
    "limited its holding to agreements governed by the district's 2019 employment statute",
    "The Ninth District Court of Appeals held a three-year, industry-wide non-compete for a "
    "warehouse supervisor unenforceable under the district's 2019 employment statute.",
    "Courts have held that three-year, industry-wide non-competes for warehouse supervisors are "
    "unenforceable.",
    "In Halvorsen v. Pike Logistics, the Ninth District held such a non-compete unenforceable, "
    "limiting its holding to agreements under the district's 2019 statute.",
    "The passage licenses a holding confined to one district's statute, but the raised claim "
    "states stronger a general rule across courts.",
    "scope", 2, group="halvorsen")

row(AQA, "aqa-05210", HALVORSEN_CTX, HALVORSEN,
    "broader than any legitimate business interest, and therefore void",
    "The panel suggested the non-compete clause may have been broader than the employer's "
    "legitimate business interests.",
    "The panel described the non-compete clause as broader than any legitimate business interest "
    "and therefore void.",
    "The panel suggested the non-compete clause may have been broader than the employer's "
    "legitimate business interests.",
    "The passage licenses a suggestion that the clause was overbroad, but the raised claim states "
    "stronger that the panel declared it overbroad and void.",
    "modality", 1, group="halvorsen",
    flaw=("raised_claim_supported",
          "The passage quotes the panel calling the clause broader than any legitimate business "
          "interest and therefore void, so the raised claim is directly licensed."))

row(EQA, "expertqa-med-0932",
    "At what level does dilvorin become toxic?",
    "Toxicity from the cardiac drug dilvorin has been reported at serum concentrations as low as "
    "1.8 ng/mL in older patients, and most reference laboratories flag levels above 2.0 ng/mL. "
    "The safe concentration for an individual depends on kidney function and potassium levels.",
    "as low as 1.8 ng/mL",
    "In older patients, dilvorin toxicity has been reported at serum levels as low as 1.8 ng/mL.",
    "In older patients, dilvorin toxicity occurs at a serum level of 1.8 ng/mL.",
    "In older patients, dilvorin toxicity has been reported at serum levels as low as 1.8 ng/mL; "
    "the safe level varies with kidney function and potassium.",
    "The passage licenses 1.8 ng/mL as the lowest level at which toxicity has been reported, but "
    "the raised claim states stronger a fixed toxicity threshold of 1.8 ng/mL.",
    "numeric", 3)

row(AQA, "aqa-05571",
    "Did the cholera outbreak lead to the Lowmarsh Sewers Act?",
    "The Lowmarsh Sewers Act was passed in 1836, four years after a cholera outbreak killed "
    "several hundred residents of the town. Council minutes mention the outbreak only once during "
    "the debate, and most speeches concerned flooding and the cost of street repairs.",
    "mention the outbreak only once during the debate",
    "The Lowmarsh Sewers Act was passed in 1836, four years after a deadly cholera outbreak.",
    "The Lowmarsh Sewers Act was passed in 1836 as a result of a deadly cholera outbreak four "
    "years earlier.",
    "The Lowmarsh Sewers Act was passed in 1836, four years after a deadly cholera outbreak that "
    "the debate barely mentioned.",
    "The passage licenses that the act followed the outbreak in time, but the raised claim states "
    "stronger that the outbreak brought the act about.",
    "relation", 2)

row(LFQA, "lfqa-1587",
    "Does screen time cause poor sleep in teenagers?",
    "A survey of 3,900 secondary-school students in the Merrow region found that those reporting "
    "more than four hours of recreational screen time a day also reported shorter sleep on school "
    "nights. The survey was cross-sectional, so the direction of the relationship could not be "
    "determined; poor sleepers may simply spend more late-night hours on their devices.",
    "the direction of the relationship could not be determined",
    "In the Merrow survey, more than four hours of daily recreational screen time was associated "
    "with shorter school-night sleep.",
    "In the Merrow survey, shorter school-night sleep caused students to spend more than four "
    "hours a day on screens.",
    "In the Merrow survey, more than four hours of daily recreational screen time was associated "
    "with shorter school-night sleep.",
    "The passage licenses an association between heavy screen time and short sleep, but the "
    "raised claim states stronger a causal link between them.",
    "relation", 2,
    flaw=("nonlocal_rewrite",
          "The raised claim reverses the relation (short sleep driving screen time) instead of "
          "strengthening the calibrated one, so it changes the proposition."))

row(GAR, "garage-08120",
    "Can the PanSense blood test detect pancreatic cancer early?",
    "In a preliminary case-control study of 180 stored samples, the PanSense blood panel "
    "distinguished early-stage pancreatic cancer from healthy controls with high accuracy. The "
    "developers stress that the test has not been evaluated in a screening population, where "
    "false positives could be far more common.",
    "In a preliminary case-control study",
    "A preliminary case-control study found that the PanSense panel distinguished early-stage "
    "pancreatic cancer from healthy controls with high accuracy.",
    "A case-control study established that the PanSense panel distinguishes early-stage "
    "pancreatic cancer from healthy controls with high accuracy.",
    "A preliminary case-control study found that the PanSense panel distinguished early-stage "
    "pancreatic cancer from healthy controls with high accuracy.",
    "The passage licenses a preliminary finding of high accuracy, but the raised claim states "
    "stronger that the accuracy has been established.",
    "modality", 3)

row(SGS, "gensearch-0904",
    "Does the Fennel CLI handle Windows paths?",
    "Fennel CLI 2.8 adds support for Windows-style paths in the import command. Other commands "
    "still expect forward slashes; full path normalization is planned for 3.0.",
    "in the import command",
    "Fennel CLI 2.8 accepts Windows-style paths in its import command.",
    "Fennel CLI 2.8 accepts Windows-style paths.",
    "Fennel CLI 2.8 accepts Windows-style paths in its import command only.",
    "The passage licenses Windows path support in one command, but the raised claim states "
    "stronger support across the whole tool.",
    "scope", 2)

row(LFQA, "lfqa-1733",
    "What is the inflation rate in Norland?",
    "Norland's statistics office reported annual consumer price inflation of 4.3% in May 2023, "
    "down from a peak of 9.1% the previous October. Economists surveyed by the central bank "
    "expected inflation to fall below 3% by mid-2024.",
    "4.3% in May 2023",
    "Norland's annual consumer price inflation was 4.3% in May 2023.",
    "Norland's annual consumer price inflation is 4.3%.",
    "Norland's annual consumer price inflation was 4.3% in May 2023.",
    "The passage licenses an inflation figure for May 2023, but the raised claim states stronger "
    "a current inflation rate.",
    "temporal", 2)

row(GAR, "garage-03318", TESSALY_CTX, TESSALY,
    "between 18 and 24 metres",
    "The Tessaly Glacier lost an estimated 18 to 24 metres of ice thickness between 1990 and "
    "2020.",
    "The Tessaly Glacier lost 24 metres of ice thickness between 1990 and 2020.",
    "The Tessaly Glacier lost an estimated 18 to 24 metres of ice thickness between 1990 and "
    "2020.",
    "The passage licenses an estimated loss of 18 to 24 metres, but the raised claim states "
    "stronger an exact 24-metre loss.",
    "numeric", 2, group="tessaly")

row(GAR, "garage-03318", TESSALY_CTX, TESSALY,
    "could lose most of its remaining volume",
    "Under a moderate-emissions scenario, the Tessaly Glacier could lose most of its remaining "
    "volume by 2080.",
    "Under a moderate-emissions scenario, the Tessaly Glacier will lose most of its remaining "
    "volume by 2080.",
    "Under a moderate-emissions scenario, the Tessaly Glacier could lose most of its remaining "
    "volume by 2080, though snowfall is uncertain.",
    "The passage licenses a projected possible loss, but the raised claim states stronger a "
    "certain loss under that scenario.",
    "modality", 2, group="tessaly")

row(GAR, "garage-03318", TESSALY_CTX, TESSALY,
    "the authors project that the glacier could lose most of its remaining volume by 2080",
    "The authors project that, under a moderate-emissions scenario, the Tessaly Glacier could "
    "lose most of its remaining volume by 2080.",
    "The Tessaly Glacier will lose all of its remaining volume by 2080.",
    "The authors project that, under a moderate-emissions scenario, the Tessaly Glacier could "
    "lose most of its remaining volume by 2080.",
    "The passage licenses a conditional projection of major ice loss, but the raised claim states "
    "stronger a certain loss by 2080.",
    "modality", 3, group="tessaly",
    flaw=("multiple_force_shifts",
          "The raised claim changes 'could' to 'will', drops the moderate-emissions condition and "
          "turns 'most' into 'all': modality, scope and numeric shifts at once."))

row(EQA, "expertqa-eng-0266",
    "Is the Wexmoor–Tallis high-speed line open yet?",
    "The regional rail authority expects the Wexmoor–Tallis high-speed line to open to passengers "
    "in late 2026, cutting the journey to about 50 minutes. Tunnelling was about two-thirds "
    "complete at the end of 2023.",
    "to open to passengers in late 2026",
    "The Wexmoor–Tallis high-speed line is expected to open in late 2026 and cut the journey to "
    "about 50 minutes.",
    "The Wexmoor–Tallis high-speed line has cut the journey to about 50 minutes.",
    "The Wexmoor–Tallis high-speed line is expected to open in late 2026, when it should cut the "
    "journey to about 50 minutes.",
    "The passage licenses a journey time expected once the line opens in 2026, but the raised "
    "claim states stronger that the shorter journey is already in place.",
    "temporal", 2)

row(AQA, "aqa-06024",
    "How tall is Mount Eskar?",
    "Survey teams have measured Mount Eskar at about 4,810 metres, though estimates vary by up "
    "to 15 metres depending on the thickness of the summit snow cap in a given season.",
    "about 4,810 metres",
    "Mount Eskar is about 4,810 metres tall, with estimates varying by season.",
    "Mount Eskar is 4,810 metres tall.",
    "Mount Eskar is about 4,810 metres tall, with estimates varying by up to 15 metres.",
    "The passage licenses an approximate height of about 4,810 metres, but the raised claim "
    "states stronger an exact height.",
    "numeric", 1)

row(EQA, "expertqa-med-1004",
    "Does a low-sodium diet lower blood pressure?",
    "The Ostrel study measured blood pressure in 300 volunteers before and after a six-week "
    "low-sodium diet and found an average drop of 5 mmHg systolic. Participants were recruited "
    "through newspaper advertisements.",
    "Participants were recruited through newspaper advertisements.",
    "In the Ostrel study, volunteers recruited through newspaper advertisements saw systolic "
    "blood pressure drop by an average of 5 mmHg after a six-week low-sodium diet.",
    "In the Ostrel study, adults saw systolic blood pressure drop by an average of 5 mmHg after a "
    "six-week low-sodium diet.",
    "In the Ostrel study, volunteers recruited through newspaper advertisements saw systolic "
    "blood pressure drop by an average of 5 mmHg after a six-week low-sodium diet.",
    "The passage licenses a result in volunteers recruited by advertisement, but the raised claim "
    "states stronger a result for adults generally.",
    "scope", 2,
    flaw=("no_decisive_span",
          "How participants were recruited does not restrict who they were, and the passage "
          "states no population limit at all, so no span decides whether 'adults' goes beyond "
          "it."))

row(GAR, "garage-06645",
    "Does the herbicide corvaline cause Parkinson's disease?",
    "Farmworkers in the Tarn valley cohort who reported ten or more years of mixing the herbicide "
    "corvaline had roughly double the rate of Parkinson's disease diagnoses of other farmworkers. "
    "Exposure was self-reported, and the authors call for toxicological work to test whether the "
    "association is causal.",
    "to test whether the association is causal",
    "Among Tarn valley farmworkers, ten or more years of mixing corvaline was associated with "
    "roughly double the rate of Parkinson's diagnoses.",
    "Among Tarn valley farmworkers, ten or more years of mixing corvaline doubled the rate of "
    "Parkinson's diagnoses.",
    "Among Tarn valley farmworkers, ten or more years of mixing corvaline was associated with "
    "roughly double the rate of Parkinson's diagnoses; causation is untested.",
    "The passage licenses an association between long corvaline exposure and Parkinson's, but "
    "the raised claim states stronger that the exposure doubled the disease rate.",
    "relation", 3)

row(SGS, "gensearch-1172",
    "Is there water on the exoplanet Kestrel-7 b?",
    "Transmission spectra of the sub-Neptune Kestrel-7 b show a weak absorption feature near 1.4 "
    "microns that is consistent with water vapour. The signal is at the edge of detectability and "
    "could also reflect activity on the host star.",
    "consistent with water vapour",
    "Kestrel-7 b's transmission spectrum shows a weak feature consistent with water vapour.",
    "Kestrel-7 b's transmission spectrum shows water vapour in its atmosphere.",
    "Kestrel-7 b's transmission spectrum shows a weak feature consistent with water vapour, which "
    "could also come from stellar activity.",
    "The passage licenses a feature that is consistent with water vapour, but the raised claim "
    "states stronger that water vapour was detected.",
    "modality", 2)

row(EQA, "expertqa-edu-0358",
    "Did later school start times improve attendance in Fairhaven?",
    "After the Fairhaven district moved high-school start times from 7:30 to 8:45, first-period "
    "attendance at its high schools rose by about 6 percentage points over two years. The "
    "district's middle schools kept their original schedule and showed no change.",
    "first-period attendance at its high schools",
    "After Fairhaven moved high-school start times later, first-period attendance at its high "
    "schools rose by about 6 percentage points.",
    "After Fairhaven moved high-school start times later, first-period attendance across the "
    "district's schools rose by about 6 percentage points.",
    "After Fairhaven moved high-school start times later, first-period attendance at its high "
    "schools rose by about 6 percentage points.",
    "The passage licenses an attendance rise at the district's high schools, but the raised claim "
    "states stronger a rise across all of its schools.",
    "scope", 2)

row(LFQA, "lfqa-0655", CURLEW_CTX, CURLEW,
    "roughly four to six days",
    "Most tagged bar-tailed curlews crossed to West Africa in a single non-stop flight lasting "
    "roughly four to six days.",
    "Most tagged bar-tailed curlews crossed to West Africa in a single non-stop flight lasting six "
    "days.",
    "Most tagged bar-tailed curlews crossed to West Africa in a single non-stop flight lasting "
    "roughly four to six days.",
    "The passage licenses a flight of roughly four to six days, but the raised claim states "
    "stronger an exact six-day flight.",
    "numeric", 1, group="curlew")

row(GAR, "garage-09013",
    "How fast is sea level rising at Port Avel?",
    "Tide-gauge records at Port Avel show relative sea level rising by 3 to 4 millimetres a year "
    "since 1993. Land subsidence accounts for an uncertain share of that rise.",
    "3 to 4 millimetres a year",
    "Relative sea level at Port Avel has risen by 3 to 4 millimetres a year since 1993.",
    "Relative sea level at Port Avel has risen by 4 millimetres a year since 1993.",
    "Relative sea level at Port Avel has risen by 3 to 4 millimetres a year since 1993.",
    "The passage licenses a rate of 3 to 4 millimetres a year, but the raised claim states "
    "stronger a single rate of 4 millimetres.",
    "numeric", 2)

row(LFQA, "lfqa-1962",
    "Does being bilingual delay dementia?",
    "Among 640 patients at the Bremmel memory clinic, lifelong bilinguals received a dementia "
    "diagnosis on average four years later than monolinguals. Because the groups also differed in "
    "education and migration history, the authors describe the finding as an association that "
    "warrants prospective study.",
    "describe the finding as an association",
    "At the Bremmel memory clinic, lifelong bilingualism was associated with a dementia diagnosis "
    "about four years later.",
    "At the Bremmel memory clinic, lifelong bilingualism delayed dementia diagnosis by about four "
    "years.",
    "At the Bremmel memory clinic, lifelong bilinguals were diagnosed with dementia about four "
    "years later than monolinguals, an association not yet tested prospectively.",
    "The passage licenses an association with later diagnosis, but the raised claim states "
    "stronger that bilingualism caused the delay.",
    "relation", 2)

row(AQA, "aqa-06580",
    "Do new homes in Kessling need heat-pump-ready wiring?",
    "The draft ordinance released by the Kessling planning office would require new homes to "
    "include a heat-pump-ready electrical panel. The draft is open for public comment until 30 "
    "April and could be amended before the council votes.",
    "would require new homes",
    "A draft Kessling ordinance would require new homes to include a heat-pump-ready electrical "
    "panel.",
    "A Kessling ordinance requires new homes to include a heat-pump-ready electrical panel.",
    "A draft Kessling ordinance, still open for comment, would require new homes to include a "
    "heat-pump-ready electrical panel.",
    "The passage licenses a requirement proposed in a draft, but the raised claim states stronger "
    "a requirement already in force.",
    "modality", 2)

row(GAR, "",
    "What is the median age in Corvel County?",
    "According to the 2020 census, the median age in Corvel County was 41.2 years, up from 38.9 "
    "a decade earlier.",
    "According to the 2020 census",
    "According to the 2020 census, the median age in Corvel County was 41.2 years.",
    "The median age in Corvel County is 41.2 years.",
    "According to the 2020 census, the median age in Corvel County was 41.2 years.",
    "The passage licenses a median age measured in the 2020 census, but the raised claim states "
    "stronger a present-day median age.",
    "temporal", 1)

row(SGS, "gensearch-1310",
    "Did Brennock's crisis-response pilot reduce arrests?",
    "A pilot program in the town of Brennock placed trained mental-health responders in the 911 "
    "dispatch center for six months. Over that period, the share of behavioural-health calls that "
    "ended in an arrest fell from 9% to 5%.",
    "fell from 9% to 5%",
    "Brennock's dispatch pilot caused the share of behavioural-health calls ending in arrest to "
    "fall from 9% to 5%.",
    "Brennock's dispatch pilot proved that placing mental-health responders in dispatch prevents "
    "arrests on behavioural-health calls.",
    "Brennock's dispatch pilot caused the share of behavioural-health calls ending in arrest to "
    "fall from 9% to 5%.",
    "The passage licenses a drop in arrests during the pilot, but the raised claim states "
    "stronger that the pilot proved the approach prevents arrests.",
    "relation", 2,
    flaw=("unsupported_calibrated_claim",
          "The passage only reports that arrests fell during the pilot period; the calibrated "
          "claim already says the pilot caused the fall, which the passage does not license."))

row(SGS, "gensearch-1388",
    "How much range does the Vantor battery keep in the cold?",
    "In the manufacturer's cold-chamber tests at −20 °C, the Vantor 82 kWh pack retained about 78% "
    "of its rated range. The tests were run on new packs only; degraded packs were not evaluated.",
    "The tests were run on new packs only",
    "In cold-chamber tests at −20 °C, new Vantor 82 kWh packs retained about 78% of their rated "
    "range.",
    "In cold-chamber tests at −20 °C, Vantor 82 kWh packs of any age retained about 78% of their "
    "rated range.",
    "In cold-chamber tests at −20 °C, new Vantor 82 kWh packs retained about 78% of their rated "
    "range; older packs were not tested.",
    "The passage licenses a result for new packs, but the raised claim states stronger a result "
    "for packs of any age.",
    "scope", 2)

row(EQA, "expertqa-econ-0147",
    "Did cutting the steel tariff increase imports?",
    "Imports of processed steel into Calvany rose 14% in the year after the 2019 tariff "
    "reduction. Over the same year, domestic construction reached a ten-year high, and the trade "
    "ministry's review did not attempt to separate the two effects.",
    "did not attempt to separate the two effects",
    "Calvany's processed-steel imports rose 14% in the year after the 2019 tariff reduction.",
    "Calvany's 2019 tariff reduction raised processed-steel imports by 14% the following year.",
    "Calvany's processed-steel imports rose 14% in the year after the 2019 tariff reduction, "
    "during a construction boom.",
    "The passage licenses a rise in imports after the tariff cut, but the raised claim states "
    "stronger that the tariff cut produced the rise.",
    "relation", 2)

row(EQA, "expertqa-bio-0421",
    "How long do adult mayflies live?",
    "Adults of the river mayfly Ephemera tarsalis emerge in synchronised swarms and live for less "
    "than two days, during which they neither feed nor grow.",
    "less than two days",
    "Adult Ephemera tarsalis mayflies live for less than two days.",
    "Adult Ephemera tarsalis mayflies live for two days.",
    "Adult Ephemera tarsalis mayflies live for less than two days.",
    "The passage licenses an adult lifespan bounded at under two days, but the raised claim "
    "states stronger a lifespan of exactly two days.",
    "numeric", 1)

row(AQA, "aqa-07119",
    "Is there a measles outbreak in Delford?",
    "Health officials confirmed 27 measles cases in Delford between January and March 2019, "
    "most among unvaccinated children. The county's last update, issued in April 2019, reported "
    "no new cases for three weeks.",
    "between January and March 2019",
    "Delford had 27 confirmed measles cases between January and March 2019.",
    "Delford has an active measles outbreak with 27 confirmed cases.",
    "Delford had 27 confirmed measles cases between January and March 2019, with none reported in "
    "the three weeks before the April 2019 update.",
    "The passage licenses a case count for early 2019, but the raised claim states stronger an "
    "outbreak that is active now.",
    "temporal", 3)

row(GAR, "garage-04980",
    "Does lomastatin prevent heart attacks?",
    "The HEARTWOOD trial enrolled 4,800 men aged 45 to 70 with no prior heart disease and found "
    "that the cholesterol drug lomastatin reduced first heart attacks by about a quarter over five "
    "years. Women were not enrolled, and the investigators caution against extending the results "
    "to them.",
    "Women were not enrolled",
    "In the HEARTWOOD trial, lomastatin reduced first heart attacks by about a quarter in men aged "
    "45 to 70.",
    "In the HEARTWOOD trial, lomastatin reduced first heart attacks by about a quarter in adults "
    "aged 45 to 70.",
    "In the HEARTWOOD trial, lomastatin reduced first heart attacks by about a quarter in men aged "
    "45 to 70; women were not studied.",
    "The passage licenses a benefit in men aged 45 to 70, but the raised claim states stronger a "
    "benefit in adults of both sexes.",
    "scope", 3)

row(LFQA, "lfqa-2048",
    "Is Quill's legacy callback API going away?",
    "The changelog for Quill 6.2 marks the legacy callback API as deprecated and says it is "
    "likely to be removed in a future major release, possibly 7.0. Projects are encouraged to "
    "migrate to the async interface.",
    "likely to be removed",
    "Quill 6.2 deprecates the legacy callback API, which is likely to be removed in a future major "
    "release.",
    "Quill 6.2 deprecates the legacy callback API, which will be removed in a future major "
    "release.",
    "Quill 6.2 deprecates the legacy callback API, which is likely to be removed in a future major "
    "release.",
    "The passage licenses a likely future removal, but the raised claim states stronger that "
    "removal is certain.",
    "modality", 1)

row(AQA, "",
    "What time does the Lanthorn Library close on weekdays?",
    "The 2019 visitor guide lists the Lanthorn Library as open until 8 p.m. on weekdays and until "
    "5 p.m. on Saturdays, with Sunday opening limited to the reading room.",
    "The 2019 visitor guide",
    "According to its 2019 visitor guide, the Lanthorn Library was open until 8 p.m. on weekdays.",
    "The Lanthorn Library is open until 8 p.m. on weekdays.",
    "According to its 2019 visitor guide, the Lanthorn Library was open until 8 p.m. on weekdays.",
    "The passage licenses weekday hours listed in a 2019 guide, but the raised claim states "
    "stronger that those are the library's hours now.",
    "temporal", 1)

row(LFQA, "lfqa-0655", CURLEW_CTX, CURLEW,
    "roughly four to six days",
    "Most of the tagged curlews reached West Africa in one non-stop flight of roughly four to six "
    "days.",
    "Most of the tagged curlews reached West Africa in one non-stop flight of six days.",
    "Most of the tagged curlews reached West Africa in one non-stop flight of roughly four to six "
    "days.",
    "The passage licenses a non-stop flight of roughly four to six days, but the raised claim "
    "states stronger a flight of exactly six days.",
    "numeric", 1, group="curlew",
    flaw=("duplicate",
          "Same context, passage, span and contrast as {dup_of}, only reworded."))

row(SGS, "gensearch-1455",
    "How large was the royal army at the Battle of Carrow Ford?",
    "Estimates of the royal army at Carrow Ford range from 6,000 to 9,000 men. The only "
    "contemporary chronicle gives 12,000, a figure most historians regard as inflated.",
    "range from 6,000 to 9,000 men",
    "Historians estimate the royal army at Carrow Ford at 6,000 to 9,000 men.",
    "The royal army at Carrow Ford numbered 9,000 men.",
    "Historians estimate the royal army at Carrow Ford at between 6,000 and 9,000 men.",
    "The passage licenses an estimated range of 6,000 to 9,000, but the raised claim states "
    "stronger an exact strength of 9,000.",
    "numeric", 2)

row(GAR, "garage-05127",
    "Did the June heatwave cause the wheat harvest to fail?",
    "Wheat yields in the Southern Plains province fell 22% in 2022, a season marked by a record "
    "June heatwave and the lowest spring rainfall in thirty years. The provincial agronomy "
    "service attributes the loss to heat and drought together and has not tried to apportion it "
    "between them.",
    "has not tried to apportion it between them",
    "Southern Plains wheat yields fell 22% in 2022, a loss the agronomy service attributes to "
    "heat and drought together.",
    "The record June heatwave caused the 22% fall in Southern Plains wheat yields in 2022.",
    "Southern Plains wheat yields fell 22% in 2022, a loss the agronomy service attributes to "
    "heat and drought together.",
    "The passage licenses a joint attribution to heat and drought, but the raised claim states "
    "stronger that the heatwave alone caused the loss.",
    "relation", 2)

row(AQA, "aqa-07718", ZURICH_CTX, ZURICH,
    "roughly 140 master weavers",
    "Zürich's guild registers list roughly 140 master weavers active around 1480.",
    "Zürich's guild registers list exactly 140 master weavers active around 1480.",
    "Zürich's guild registers list roughly 140 master weavers active around 1480.",
    "The passage licenses an approximate count of 140 weavers, but the raised claim states "
    "stronger an exact count.",
    "numeric", 1, group="zurich")

row(AQA, "aqa-07718", ZURICH_CTX, ZURICH,
    "may have driven the trade's later decline",
    "Historians have proposed that competition from rural workshops may have driven the later "
    "decline of weaving in Zürich.",
    "Competition from rural workshops drove the later decline of weaving in Zürich.",
    "Historians have proposed that competition from rural workshops may have driven the later "
    "decline of weaving in Zürich; the registers give no reasons.",
    "The passage licenses rural competition as a proposed explanation, but the raised claim "
    "states stronger that it was the settled cause.",
    "modality", 2, group="zurich")

row(AQA, "aqa-08035",
    "Do I need a permit to fly a drone in Harlan County parks?",
    "Under Harlan County's parks bylaw, flying a recreational drone over county parkland "
    "requires a permit from the parks department. City-owned parks inside the county are "
    "governed by their own municipal rules.",
    "over county parkland",
    "Flying a recreational drone over Harlan County parkland requires a permit from the county "
    "parks department.",
    "Flying a recreational drone over any park in Harlan County requires a permit from the county "
    "parks department.",
    "Flying a recreational drone over county-owned parkland in Harlan County requires a county "
    "permit; city parks set their own rules.",
    "The passage licenses a permit rule for county-owned parkland, but the raised claim states "
    "stronger a rule for every park in the county.",
    "scope", 2)

row(EQA, "expertqa-cs-0533",
    "Does the Pebble Payments API accept OAuth 1.0a?",
    "The Pebble Payments API documentation, last updated in January 2022, states that OAuth 1.0a "
    "tokens are accepted for legacy integrations but will be rejected after a migration scheduled "
    "for the end of that year.",
    "last updated in January 2022",
    "As of January 2022, the Pebble Payments API accepted OAuth 1.0a tokens for legacy "
    "integrations.",
    "The Pebble Payments API accepts OAuth 1.0a tokens for legacy integrations.",
    "As of January 2022, the Pebble Payments API accepted OAuth 1.0a tokens for legacy "
    "integrations, with rejection scheduled for the end of that year.",
    "The passage licenses OAuth 1.0a support as documented in January 2022, but the raised claim "
    "states stronger that the API accepts those tokens today.",
    "temporal", 2)

row(GAR, "garage-06211",
    "Are wind turbines in Kestrel Bay harming eider ducks?",
    "Early results from monitoring at the Kestrel Bay wind farm suggest the turbines may be "
    "reducing local numbers of eider ducks, which appear to avoid the array. Monitoring will "
    "continue for three more years.",
    "suggest the turbines may be reducing local numbers of eider ducks",
    "Early monitoring suggests the Kestrel Bay wind farm may be reducing local eider duck "
    "numbers.",
    "Early monitoring shows the Kestrel Bay wind farm is reducing local eider duck numbers, and "
    "its turbines have killed dozens of seabirds in collisions.",
    "Early monitoring suggests the Kestrel Bay wind farm may be reducing local eider duck numbers.",
    "The passage licenses a possible reduction in eider numbers, but the raised claim states "
    "stronger that the wind farm is definitely reducing them.",
    "modality", 2,
    flaw=("unrelated_addition",
          "On top of the may-to-is shift, the raised claim adds seabird collision deaths, an "
          "unsupported fact the passage never mentions."))

row(GAR, "garage-06832",
    "What is the half-life of the newly found excited state in tin-117?",
    "The Hallam Nuclear Group measured the half-life of a newly identified excited state in "
    "tin-117 at 7.6 ± 0.4 nanoseconds, consistent with two earlier, less precise measurements.",
    "7.6 ± 0.4 nanoseconds",
    "The Hallam Nuclear Group measured the half-life of the new tin-117 excited state at 7.6 ± "
    "0.4 nanoseconds.",
    "The half-life of the new tin-117 excited state is exactly 7.6 nanoseconds.",
    "The Hallam Nuclear Group measured the half-life of the new tin-117 excited state at 7.6 ± "
    "0.4 nanoseconds.",
    "The passage licenses a measurement with an uncertainty of 0.4 nanoseconds, but the raised "
    "claim states stronger an exact value.",
    "numeric", 1)

row(EQA, "expertqa-law-0712",
    "Will the Eldmoor self-defence conviction be overturned?",
    "The Supreme Court of Eldmoor granted leave to appeal, signalling that the trial judge's jury "
    "instructions may have misstated the standard for self-defence. Leave to appeal does not "
    "decide the merits, and a hearing is scheduled for the autumn term.",
    "may have misstated the standard for self-defence",
    "Eldmoor's Supreme Court granted leave to appeal over jury instructions that may have "
    "misstated the self-defence standard.",
    "Eldmoor's Supreme Court granted leave to appeal over jury instructions that misstated the "
    "self-defence standard.",
    "Eldmoor's Supreme Court granted leave to appeal over jury instructions that may have "
    "misstated the self-defence standard; the merits are undecided.",
    "The passage licenses a possible misdirection on self-defence, but the raised claim states "
    "stronger that the instructions were wrong.",
    "modality", 2)

row(SGS, "gensearch-1520",
    "Does Tessellate Audio's offline-playlist feature reduce cancellations?",
    "Subscribers who enabled the new offline-playlist feature in the first quarter cancelled at "
    "roughly half the rate of other subscribers, Tessellate Audio said in its investor letter, "
    "adding that these users were already among its most engaged.",
    "these users were already among its most engaged",
    "Tessellate Audio subscribers who enabled offline playlists cancelled at roughly half the "
    "rate of other subscribers.",
    "Enabling offline playlists cut Tessellate Audio subscribers' cancellation rate roughly in "
    "half.",
    "Tessellate Audio subscribers who enabled offline playlists, already its most engaged users, "
    "cancelled at roughly half the rate of others.",
    "The passage licenses a lower cancellation rate among feature users, but the raised claim "
    "states stronger that the feature caused the lower rate.",
    "relation", 2)

row(LFQA, "lfqa-2210",
    "Can bees recognise human faces?",
    "In laboratory trials, honeybees trained with sugar rewards learned to pick out a target "
    "photograph of a human face from among three similar faces, succeeding in about 70% of "
    "tests. The study used bees from a single colony at one apiary.",
    "bees from a single colony at one apiary",
    "In lab trials, honeybees from a single colony learned to pick out a target human face in "
    "about 70% of tests.",
    "In lab trials, honeybees learned to pick out a target human face in about 70% of tests.",
    "In lab trials, honeybees from a single colony learned to pick out a target human face in "
    "about 70% of tests.",
    "The passage licenses a result for bees from one colony, but the raised claim states stronger "
    "a result for honeybees in general.",
    "scope", 1)

row(EQA, "expertqa-med-1150", CALDER_CTX, CALDER,
    "if they live in residential care",
    "Calder Health Board guidance advises adults over 65 in residential care to consider an "
    "annual pneumococcal booster.",
    "Calder Health Board guidance advises adults over 65 to consider an annual pneumococcal "
    "booster.",
    "Calder Health Board guidance advises adults over 65 in residential care to consider an "
    "annual pneumococcal booster.",
    "The passage licenses advice for over-65s in residential care, but the raised claim states "
    "stronger advice for all adults over 65.",
    "scope", 2, group="calder")

row(EQA, "expertqa-med-1150", CALDER_CTX, CALDER,
    "advises adults over 65 to consider",
    "Calder Health Board guidance recommends that adults over 65 in residential care consider an "
    "annual pneumococcal booster.",
    "Calder Health Board guidance requires adults over 65 in residential care to have an annual "
    "pneumococcal booster.",
    "Calder Health Board guidance recommends that adults over 65 in residential care consider an "
    "annual pneumococcal booster.",
    "The passage licenses a recommendation to consider a booster, but the raised claim states "
    "stronger an obligation to have one.",
    "relation", 2, group="calder")

row(AQA, "aqa-08266",
    "How much of their income do low-income renters in São Paulo spend on rent?",
    "A 2022 household survey of renters in São Paulo's central districts found that rent "
    "absorbed roughly 30 to 40 percent of income for households in the lowest income quintile. "
    "The survey excluded informal housing arrangements.",
    "São Paulo's central districts",
    "In São Paulo's central districts, rent absorbed roughly 30 to 40 percent of income for the "
    "lowest-income renters in 2022.",
    "In São Paulo, rent absorbed roughly 30 to 40 percent of income for the lowest-income renters "
    "in 2022.",
    "In São Paulo's central districts, rent absorbed roughly 30 to 40 percent of income for the "
    "lowest-income renters in 2022.",
    "The passage licenses a finding for the city's central districts, but the raised claim states "
    "stronger a finding for São Paulo as a whole.",
    "scope", 2)

row(EQA, "expertqa-eng-0389",
    "How much do heat pumps cut heating bills in terraced houses?",
    "Heat pumps installed in the pilot's 240 terraced houses cut winter heating bills by 12–18% "
    "compared with the gas boilers they replaced, with the spread depending largely on insulation "
    "quality.",
    "by 12–18%",
    "In the pilot's terraced houses, heat pumps cut winter heating bills by 12–18% compared with "
    "gas boilers.",
    "In the pilot's terraced houses, heat pumps cut winter heating bills by 18% compared with gas "
    "boilers.",
    "In the pilot's terraced houses, heat pumps cut winter heating bills by 12–18% compared with "
    "gas boilers, depending on insulation.",
    "The passage licenses savings of 12–18% that vary with insulation, but the raised claim "
    "states stronger a fixed 18% saving.",
    "numeric", 2)

row(AQA, "aqa-08590",
    "How many of Harwick's bridges need repairs?",
    "The Harwick council's 2023 audit found that 18 of the town's 40 road bridges need structural "
    "repairs within five years. Six of those were rated urgent.",
    "18 of the town's 40 road bridges",
    "A 2023 audit found that 18 of Harwick's 40 road bridges need structural repairs within five "
    "years.",
    "A 2023 audit found that almost half of Harwick's road bridges need structural repairs within "
    "five years.",
    "A 2023 audit found that 18 of Harwick's 40 road bridges need structural repairs within five "
    "years.",
    "The passage licenses a count of 18 bridges out of 40, but the raised claim states stronger a "
    "proportion covering almost half of all the town's bridges.",
    "numeric", 1,
    flaw=("safe_or_underclaimed",
          "'Almost half' is a looser rendering of 18 out of 40 and is fully licensed; the raised "
          "claim is not stronger than the calibrated one."))

row(AQA, "aqa-08841",
    "Did the fibre evidence place the defendant at the scene?",
    "At trial, a forensic analyst testified that blue acrylic fibres recovered from the window "
    "frame were consistent with the defendant's coat. On cross-examination she acknowledged that "
    "the same fibre type is used in thousands of mass-market garments.",
    "were consistent with the defendant's coat",
    "A forensic analyst testified that fibres from the window frame were consistent with the "
    "defendant's coat.",
    "A forensic analyst testified that fibres from the window frame proved the defendant's coat "
    "had been at the scene.",
    "A forensic analyst testified that fibres from the window frame were consistent with the "
    "defendant's coat, a fibre type common in mass-market garments.",
    "The passage licenses testimony that the fibres were consistent with the coat, but the raised "
    "claim states stronger that they proved the coat was at the scene.",
    "relation", 3)

row(GAR, "garage-07406",
    "Will the North Vell Sea overturning circulation collapse?",
    "Using a century of sea-surface temperature records, the authors estimate that the "
    "overturning circulation in the North Vell Sea could weaken past a tipping point sometime "
    "between 2040 and 2090. They emphasise that the estimate rests on a simplified model with "
    "wide error bars.",
    "could weaken past a tipping point",
    "The authors estimate that the North Vell Sea overturning circulation could pass a tipping "
    "point between 2040 and 2090.",
    "The authors estimate that the North Vell Sea overturning circulation will pass a tipping "
    "point between 2040 and 2090.",
    "The authors estimate, from a simplified model, that the North Vell Sea overturning "
    "circulation could pass a tipping point between 2040 and 2090.",
    "The passage licenses a possible tipping point within a wide window, but the raised claim "
    "states stronger that the tipping point will be crossed.",
    "modality", 3)

row(AQA, "aqa-09012",
    "What is the largest single-mirror optical telescope?",
    "When the survey paper was written in 2017, the Serra Alta Observatory's 10.4-metre mirror "
    "made it the largest single-aperture optical telescope in operation. Three larger instruments "
    "were then under construction.",
    "When the survey paper was written in 2017",
    "In 2017, the Serra Alta Observatory's 10.4-metre telescope was the largest single-aperture "
    "optical telescope in operation.",
    "The Serra Alta Observatory's 10.4-metre telescope is the largest single-aperture optical "
    "telescope in operation.",
    "In 2017, the Serra Alta Observatory's 10.4-metre telescope was the largest single-aperture "
    "optical telescope in operation, with three larger ones under construction.",
    "The passage licenses the ranking as of 2017, but the raised claim states stronger that the "
    "telescope is the largest today.",
    "temporal", 2)

row(SGS, "gensearch-1603",
    "Which Kite router firmware versions have the login bypass bug?",
    "The security advisory states that Kite router firmware versions 4.1.0 through 4.1.6 are "
    "affected by the authentication bypass and that 4.1.7 contains the fix. Devices running the "
    "3.x line use a different login service and were not tested.",
    "versions 4.1.0 through 4.1.6",
    "Kite router firmware versions 4.1.0 through 4.1.6 are affected by the authentication "
    "bypass.",
    "Kite router firmware versions before 4.1.7 are affected by the authentication bypass.",
    "Kite router firmware versions 4.1.0 through 4.1.6 are affected by the authentication bypass; "
    "the 3.x line was not tested.",
    "The passage licenses the flaw in versions 4.1.0 to 4.1.6, but the raised claim states "
    "stronger that every earlier version is affected.",
    "scope", 1)

row(LFQA, "lfqa-2377",
    "How many rural households in Lorvan lack safe water?",
    "The ministry estimates that fewer than 1 in 10 rural households in Lorvan lack access to a "
    "protected water source, down from about a quarter in 2010.",
    "fewer than 1 in 10",
    "The ministry estimates that fewer than 1 in 10 rural Lorvan households lack a protected "
    "water source.",
    "The ministry estimates that 1 in 10 rural Lorvan households lack a protected water source.",
    "The ministry estimates that fewer than 1 in 10 rural Lorvan households lack a protected "
    "water source.",
    "The passage licenses an upper bound of fewer than 1 in 10 households, but the raised claim "
    "states stronger a point estimate of 1 in 10.",
    "numeric", 2)

row(GAR, "garage-08451", ORCHARD_CTX, ORCHARD,
    "for read-heavy workloads on PostgreSQL 14",
    "In the maintainers' benchmarks, Orchard 5.0's connection pooling cut median query latency "
    "for read-heavy workloads on PostgreSQL 14.",
    "In the maintainers' benchmarks, Orchard 5.0's connection pooling cut median query latency "
    "for read-heavy workloads on every supported database.",
    "In the maintainers' benchmarks, Orchard 5.0's connection pooling cut median query latency "
    "for read-heavy workloads on PostgreSQL 14.",
    "The passage licenses a latency gain measured on PostgreSQL 14, but the raised claim states "
    "stronger a gain on every supported database.",
    "scope", 2, group="orchard")

row(GAR, "garage-08451", ORCHARD_CTX, ORCHARD,
    "by 20–35%",
    "In the maintainers' benchmarks, Orchard 5.0's connection pooling cut median query latency by "
    "20–35% for read-heavy PostgreSQL 14 workloads.",
    "In the maintainers' benchmarks, Orchard 5.0's connection pooling cut median query latency by "
    "35% for read-heavy PostgreSQL 14 workloads.",
    "In the maintainers' benchmarks, Orchard 5.0's connection pooling cut median query latency by "
    "20–35% for read-heavy PostgreSQL 14 workloads.",
    "The passage licenses a latency cut of 20–35%, but the raised claim states stronger a single "
    "35% cut.",
    "numeric", 2, group="orchard")

row(GAR, "garage-08451", ORCHARD_CTX, ORCHARD,
    "until June 2025",
    "The Orchard 4.x branch is scheduled to receive security fixes until June 2025.",
    "The Orchard 4.x branch receives security fixes.",
    "The Orchard 4.x branch is scheduled to receive security fixes until June 2025.",
    "The passage licenses security support for 4.x up to June 2025, but the raised claim states "
    "stronger open-ended, current support.",
    "temporal", 2, group="orchard")

row(LFQA, "lfqa-2481",
    "What is in the Hollin Museum's east wing?",
    "The Hollin Museum's east wing houses a collection of about 3,000 Bronze Age artefacts, "
    "including the Hollin hoard of gold torcs. Entry to the permanent galleries is free.",
    "Entry to the permanent galleries is free.",
    "When the passage was written, the Hollin Museum's east wing housed about 3,000 Bronze Age "
    "artefacts.",
    "The Hollin Museum's east wing houses about 3,000 Bronze Age artefacts.",
    "When the passage was written, the Hollin Museum's east wing housed about 3,000 Bronze Age "
    "artefacts.",
    "The passage licenses the collection size at the time of writing, but the raised claim states "
    "stronger a current collection size.",
    "temporal", 1,
    flaw=("no_decisive_span",
          "The passage carries no date or as-of marker, and the suggested span (free entry) is "
          "irrelevant to the contrast; nothing in the passage decides a temporal gap."))

row(LFQA, "lfqa-2519",
    "Who wrote the Orren manuscript?",
    "The manuscript's handwriting and parchment point to a scriptorium in the northern abbeys, "
    "and some scholars attribute it tentatively to the monks of Saint Orren. No colophon or "
    "ownership mark survives.",
    "attribute it tentatively to the monks of Saint Orren",
    "Some scholars tentatively attribute the manuscript to the monks of Saint Orren.",
    "The manuscript was written by the monks of Saint Orren.",
    "Some scholars tentatively attribute the manuscript to the monks of Saint Orren.",
    "The passage licenses a tentative scholarly attribution, but the raised claim states stronger "
    "a settled authorship.",
    "modality", 2)

row(EQA, "expertqa-fin-0602",
    "Did the TV campaign boost Breck Valley cider sales?",
    "Sales of Breck Valley cider rose 9% in the quarter of its first national television "
    "campaign, the company's annual report notes, alongside a price cut at two major supermarket "
    "chains.",
    "alongside a price cut at two major supermarket chains",
    "Breck Valley cider sales rose 9% in the quarter of its first national TV campaign.",
    "Breck Valley's first national TV campaign lifted cider sales by 9% that quarter.",
    "Breck Valley cider sales rose 9% in the quarter of its first national TV campaign, which also "
    "saw supermarket price cuts.",
    "The passage licenses a sales rise in the campaign quarter, but the raised claim states "
    "stronger that the campaign produced the rise.",
    "relation", 1)

row(GAR, "garage-09305",
    "Can timber be used for bridge decks under the Northmark code?",
    "The 2020 revision of the Northmark Bridge Design Code permits cross-laminated timber decks on "
    "pedestrian bridges with spans up to 30 metres. Vehicular bridges remain limited to steel and "
    "concrete decks.",
    "on pedestrian bridges with spans up to 30 metres",
    "The 2020 Northmark Bridge Design Code permits cross-laminated timber decks on pedestrian "
    "bridges with spans up to 30 metres.",
    "The 2020 Northmark Bridge Design Code permits cross-laminated timber decks on bridges with "
    "spans up to 30 metres.",
    "The 2020 Northmark Bridge Design Code permits cross-laminated timber decks on pedestrian "
    "bridges with spans up to 30 metres.",
    "The passage licenses timber decks on pedestrian bridges, but the raised claim states stronger "
    "permission for any bridge of that span.",
    "scope", 2)

row(EQA, "expertqa-econ-0288",
    "What is the Bank of Tarsia's policy rate?",
    "At its March 2024 meeting the Bank of Tarsia held its policy rate at 5.25% and said it would "
    "review the stance at each meeting.",
    "At its March 2024 meeting",
    "At its March 2024 meeting, the Bank of Tarsia held its policy rate at 5.25%.",
    "The Bank of Tarsia's policy rate is 5.25%.",
    "At its March 2024 meeting, the Bank of Tarsia held its policy rate at 5.25%.",
    "The passage licenses the rate set at the March 2024 meeting, but the raised claim states "
    "stronger a current policy rate.",
    "temporal", 2)

row(SGS, "gensearch-1690",
    "How steep is the end of the Greyscar trail?",
    "The Greyscar trail climbs roughly 2,000 feet over its final three miles, most of it on loose "
    "scree.",
    "roughly 2,000 feet over its final three miles",
    "The Greyscar trail climbs roughly 600 metres over its final stretch of about 5 kilometres.",
    "The Greyscar trail climbs 610 metres over its final 4.8 kilometres.",
    "The Greyscar trail climbs roughly 600 metres over its final stretch of about 5 kilometres.",
    "The passage licenses an approximate climb over the last stretch, but the raised claim states "
    "stronger exact metric figures.",
    "numeric", 1,
    flaw=("needs_outside_knowledge",
          "Both claims restate the passage in metric units, so checking either one requires "
          "converting feet and miles, which the passage does not supply."))

row(GAR, "garage-09782",
    "How much load can Corbel anchor bolts hold?",
    "Tests of Corbel anchor bolts set in cured concrete showed pull-out failure at loads between "
    "11 and 14 kilonewtons. The manufacturer's datasheet advises a working load of no more than 4 "
    "kilonewtons, which builds in a safety factor.",
    "between 11 and 14 kilonewtons",
    "In tests, Corbel anchor bolts in cured concrete pulled out at loads between 11 and 14 "
    "kilonewtons.",
    "In tests, Corbel anchor bolts in cured concrete pulled out at a load of 14 kilonewtons.",
    "In tests, Corbel anchor bolts in cured concrete pulled out at loads between 11 and 14 "
    "kilonewtons; the advised working load is at most 4.",
    "The passage licenses a failure range of 11 to 14 kilonewtons, but the raised claim states "
    "stronger a single failure load at the top of that range.",
    "numeric", 3)

row(SGS, "gensearch-1744",
    "Is well water in Ashcombe safe to drink?",
    "Preliminary screening of private wells in Ashcombe found arsenic above the guideline value "
    "in 9 of 150 samples. Officials say wells in the affected area may be unsafe for drinking "
    "until confirmatory testing is complete, and advise using bottled water in the meantime.",
    "may be unsafe for drinking until confirmatory testing is complete",
    "Officials say wells in Ashcombe's affected area may be unsafe for drinking until "
    "confirmatory testing is complete.",
    "Officials say wells in Ashcombe's affected area are unsafe for drinking.",
    "Officials say wells in Ashcombe's affected area may be unsafe for drinking until "
    "confirmatory testing is complete.",
    "The passage licenses a provisional warning that wells may be unsafe, but the raised claim "
    "states stronger a confirmed finding that they are unsafe.",
    "modality", 3)

row(EQA, "expertqa-econ-0415", EASTGATE_CTX, EASTGATE,
    "between −1.2% and +0.4%",
    "The Eastgate analysis found teen employment in counties that raised the minimum wage changed "
    "by between −1.2% and +0.4% relative to neighbouring counties.",
    "The Eastgate analysis found teen employment in counties that raised the minimum wage fell by "
    "1.2% relative to neighbouring counties.",
    "The Eastgate analysis found teen employment in counties that raised the minimum wage changed "
    "by between −1.2% and +0.4% relative to neighbouring counties.",
    "The passage licenses an estimate ranging from −1.2% to +0.4%, but the raised claim states "
    "stronger a definite 1.2% fall.",
    "numeric", 2, group="eastgate")

row(EQA, "expertqa-econ-0415", EASTGATE_CTX, EASTGATE,
    "statistically indistinguishable from zero",
    "The Eastgate analysis found no statistically distinguishable change in teen employment in "
    "counties that raised the minimum wage between 2015 and 2019.",
    "The Eastgate analysis proved that raising the minimum wage between 2015 and 2019 did not "
    "change teen employment in those counties.",
    "The Eastgate analysis found no statistically distinguishable change in teen employment in "
    "counties that raised the minimum wage between 2015 and 2019.",
    "The passage licenses a result that could not be told apart from zero, but the raised claim "
    "states stronger proof of no effect.",
    "relation", 2, group="eastgate")

row(AQA, "aqa-09377",
    "Why did the Stellan grain silo collapse?",
    "The investigation report into the collapse of the Stellan grain silo lists corrosion of the "
    "discharge hopper among several possible contributing factors, alongside overfilling and a "
    "design change made in 2008. The board said it could not determine the primary cause.",
    "could not determine the primary cause",
    "The Stellan silo report lists hopper corrosion among several possible contributing factors "
    "in the collapse.",
    "The Stellan silo report identifies hopper corrosion as the cause of the collapse.",
    "The Stellan silo report lists hopper corrosion among several possible contributing factors "
    "in the collapse.",
    "The passage licenses corrosion as one possible contributing factor, but the raised claim "
    "states stronger that corrosion caused the collapse.",
    "relation", 2)

row(GAR, "garage-10026",
    "How much did container traffic at Saltmere grow in 2023?",
    "Analysts at the port authority estimate that container volumes at Saltmere grew by roughly "
    "5% in 2023. Final figures are due in the spring.",
    "roughly 5%",
    "Container volumes at Saltmere grew by roughly 5% in 2023, driven by new Asian shipping "
    "routes.",
    "Container volumes at Saltmere grew by 5.0% in 2023, driven by new Asian shipping routes.",
    "Container volumes at Saltmere grew by roughly 5% in 2023, driven by new Asian shipping "
    "routes.",
    "The passage licenses growth of roughly 5%, but the raised claim states stronger an exact "
    "5.0% figure.",
    "numeric", 2,
    flaw=("unsupported_calibrated_claim",
          "The calibrated claim already attributes the growth to new Asian shipping routes, which "
          "the passage never mentions."))

row(LFQA, "lfqa-2604",
    "Is the Bd-Kal chytrid strain deadly to Marrow tree frogs?",
    "In laboratory exposures, the chytrid strain Bd-Kal killed all 30 tadpoles of the Marrow tree "
    "frog within three weeks, while adults of the same species cleared the infection.",
    "all 30 tadpoles of the Marrow tree frog",
    "In lab exposures, the Bd-Kal chytrid strain killed all 30 Marrow tree frog tadpoles within "
    "three weeks.",
    "In lab exposures, the Bd-Kal chytrid strain killed Marrow tree frogs within three weeks.",
    "In lab exposures, the Bd-Kal chytrid strain killed all 30 Marrow tree frog tadpoles within "
    "three weeks; adults cleared the infection.",
    "The passage licenses lethality in tadpoles, but the raised claim states stronger lethality "
    "for the species at every life stage.",
    "scope", 2)

row(SGS, "gensearch-1809",
    "How full is Glenmere Reservoir?",
    "The water authority's weekly bulletin of 3 August 2022 put Glenmere Reservoir at 38% of "
    "capacity, the lowest August level since records began, and announced a hosepipe ban.",
    "bulletin of 3 August 2022",
    "On 3 August 2022, Glenmere Reservoir was at 38% of capacity and a hosepipe ban was "
    "announced.",
    "Glenmere Reservoir is at 38% of capacity under a hosepipe ban.",
    "On 3 August 2022, Glenmere Reservoir was at 38% of capacity and a hosepipe ban was "
    "announced.",
    "The passage licenses a reservoir level reported on 3 August 2022, but the raised claim states "
    "stronger a current level and ban.",
    "temporal", 2)

row(EQA, "expertqa-med-1288",
    "How effective is the MVX-4 malaria vaccine?",
    "In the phase 3 trial, efficacy of the MVX-4 malaria vaccine against clinical malaria over 12 "
    "months ranged from 66% to 77% across the five trial sites, with lower figures at sites with "
    "seasonal transmission.",
    "ranged from 66% to 77% across the five trial sites",
    "In its phase 3 trial, MVX-4's 12-month efficacy against clinical malaria ranged from 66% to "
    "77% across five sites.",
    "In its phase 3 trial, MVX-4's 12-month efficacy against clinical malaria was 77%.",
    "In its phase 3 trial, MVX-4's 12-month efficacy against clinical malaria ranged from 66% to "
    "77% across five sites.",
    "The passage licenses efficacy that ranged from 66% to 77% by site, but the raised claim "
    "states stronger a single 77% efficacy.",
    "numeric", 2)

row(GAR, "garage-10449",
    "Will Velland fall into recession next year?",
    "The central bank's latest forecast puts the probability of a recession in Velland over the "
    "next twelve months at about one in three, and describes the outlook as unusually "
    "uncertain.",
    "about one in three",
    "Velland's central bank puts the chance of a recession in the next twelve months at about one "
    "in three.",
    "Velland's central bank forecasts a recession in the next twelve months.",
    "Velland's central bank puts the chance of a recession in the next twelve months at about one "
    "in three.",
    "The passage licenses a one-in-three chance of recession, but the raised claim states stronger "
    "a forecast that a recession will happen.",
    "modality", 2)

row(AQA, "aqa-09642", BRIGHTLINE_CTX, BRIGHTLINE,
    "310 third-graders in four rural schools",
    "In the Brightline pilot, third-graders in four rural schools who received small-group "
    "phonics tutoring gained about two months of extra reading progress.",
    "In the Brightline pilot, elementary students who received small-group phonics tutoring "
    "gained about two months of extra reading progress.",
    "In the Brightline pilot, third-graders in four rural schools who received small-group "
    "phonics tutoring gained about two months of extra reading progress.",
    "The passage licenses a gain for third-graders in four rural schools, but the raised claim "
    "states stronger a gain for elementary students generally.",
    "scope", 2, group="brightline")

row(AQA, "aqa-09642", BRIGHTLINE_CTX, BRIGHTLINE,
    "Schools self-selected into the pilot",
    "In the Brightline pilot, tutored third-graders made about two months more reading progress "
    "than matched peers.",
    "In the Brightline pilot, tutoring gave third-graders about two months more reading progress "
    "than matched peers.",
    "In the Brightline pilot, tutored third-graders made about two months more reading progress "
    "than matched peers; the schools had chosen to join the pilot.",
    "The passage licenses a difference between tutored pupils and matched peers, but the raised "
    "claim states stronger that the tutoring produced the difference.",
    "relation", 2, group="brightline")

row(EQA, "expertqa-cs-0874",
    "Does Tidewater support offline maps on mobile?",
    "The 2.0 release of the Tidewater mapping library adds offline tile caching for Android apps. "
    "The iOS SDK is expected to gain the feature in a later release.",
    "for Android apps",
    "Tidewater 2.0 adds offline tile caching for Android apps.",
    "Tidewater 2.0 adds offline tile caching for Android and iOS apps, along with vector-tile "
    "rendering.",
    "Tidewater 2.0 adds offline tile caching for Android apps; iOS support is expected later.",
    "The passage licenses offline caching on Android, but the raised claim states stronger "
    "support on both mobile platforms.",
    "scope", 2,
    flaw=("unrelated_addition",
          "Beyond widening Android to Android and iOS, the raised claim adds vector-tile "
          "rendering, an unrelated feature the passage never mentions."))

row(EQA, "expertqa-edu-0611",
    "Does the LetterBridge app help children with dyslexia?",
    "A trial of the LetterBridge app with 120 children aged 7 to 9 diagnosed with dyslexia found "
    "modest gains in word-decoding accuracy after 10 weeks. Children with other reading "
    "difficulties and older pupils were not included.",
    "120 children aged 7 to 9 diagnosed with dyslexia",
    "In a trial with children aged 7 to 9 diagnosed with dyslexia, LetterBridge produced modest "
    "decoding gains.",
    "In a trial with children who have reading difficulties, LetterBridge produced modest "
    "decoding gains.",
    "In a trial with children aged 7 to 9 diagnosed with dyslexia, LetterBridge produced modest "
    "decoding gains after 10 weeks.",
    "The passage licenses gains for 7- to 9-year-olds with dyslexia, but the raised claim states "
    "stronger gains for children with reading difficulties of any kind.",
    "scope", 2)

row(LFQA, "lfqa-2733",
    "Does the full moon make emergency rooms busier?",
    "A review of 14 years of admissions at the Caldwell General emergency department found visit "
    "counts on full-moon nights within 1% of other nights, a difference the authors consider "
    "noise.",
    "within 1% of other nights",
    "Over 14 years at Caldwell General, emergency visits on full-moon nights were within 1% of "
    "other nights.",
    "Caldwell General's 14 years of records prove that the full moon had no effect on its "
    "emergency visits.",
    "Over 14 years at Caldwell General, emergency visits on full-moon nights were within 1% of "
    "other nights.",
    "The passage licenses a negligible observed difference, but the raised claim states stronger "
    "proof that the moon had no effect.",
    "relation", 1)

row(SGS, "gensearch-1902", MARSH_CTX, MARSH,
    "footbridge in 2023",
    "In 2023 load tests, the rebuilt Marsh Lane footbridge stayed within design deflection limits "
    "at 1.5 times its rated crowd load.",
    "The rebuilt Marsh Lane footbridge stays within design deflection limits at 1.5 times its "
    "rated crowd load.",
    "In 2023 load tests, the rebuilt Marsh Lane footbridge stayed within design deflection limits "
    "at 1.5 times its rated crowd load; re-testing is due after its first winter.",
    "The passage licenses a result from 2023 load tests, but the raised claim states stronger a "
    "standing property of the bridge.",
    "temporal", 2, group="marsh")

row(SGS, "gensearch-1902", MARSH_CTX, MARSH,
    "its long-term stiffness may decline",
    "The inspection report says the new composite deck's long-term stiffness may decline in "
    "freeze-thaw conditions.",
    "The inspection report says the new composite deck's long-term stiffness will decline in "
    "freeze-thaw conditions.",
    "The inspection report says the new composite deck's long-term stiffness may decline in "
    "freeze-thaw conditions.",
    "The passage licenses a possible loss of stiffness, but the raised claim states stronger that "
    "the loss will happen.",
    "modality", 2, group="marsh")


# ---------------------------------------------------------------------------------------------
# Assembly, checks and output
# ---------------------------------------------------------------------------------------------

def assemble():
    """Assign ids and group ids in list order and return (records, flaws)."""
    group_ids = {}
    records, flaws = [], []
    for n, r in enumerate(ROWS, start=1):
        rid = f"fb-{n:04d}"
        key = r["_group"] if r["_group"] is not None else f"_single_{n}"
        if key not in group_ids:
            group_ids[key] = f"g-{len(group_ids) + 1:03d}"
        rec = {"id": rid, "group_id": group_ids[key]}
        for col in COLUMNS[2:-1]:
            rec[col] = r[col]
        rec["construction_family"] = family_of(r["calibrated_claim"], r["raised_claim"])
        records.append(rec)
        if r["_flaw"] is not None:
            first_in_group = next(x["id"] for x in records if x["group_id"] == rec["group_id"])
            note = r["_flaw"][1].format(dup_of=first_in_group)
            flaws.append((rid, r["_flaw"][0], note, r["axis"], r["severity"]))
    return records, flaws


def check(records, flaws):
    ids = [r["id"] for r in records]
    assert len(ids) == len(set(ids)), "duplicate ids"
    empty_sid = 0
    for r in records:
        for col in COLUMNS:
            if col == "source_id" and r[col] == "":
                empty_sid += 1
                continue
            assert r[col] != "", f"{r['id']}: empty {col}"
        assert r["evidence_span"] in r["passage"], f"{r['id']}: span not in passage"
        assert r["axis"] in AXES, f"{r['id']}: bad axis"
        assert r["severity"] in (1, 2, 3), f"{r['id']}: bad severity"
        assert r["source_dataset"] in SOURCES, f"{r['id']}: bad source"
        assert r["calibrated_claim"] != r["raised_claim"], f"{r['id']}: claims identical"
        assert r["rationale"].startswith("The passage licenses "), f"{r['id']}: rationale form"
        assert ", but the raised claim states stronger " in r["rationale"], r["id"]
        for text in r.values():
            if isinstance(text, str):
                assert "<" not in text and ">" not in text, f"{r['id']}: looks like markup"
    assert empty_sid <= 3
    groups = Counter(r["group_id"] for r in records)
    by_group = {}
    for r in records:
        by_group.setdefault(r["group_id"], set()).add((r["context"], r["passage"]))
    assert all(len(v) == 1 for v in by_group.values()), "group with differing passages"
    assert max(groups.values()) <= 3
    assert sum(1 for c in groups.values() if c > 1) >= 8
    axes = Counter(r["axis"] for r in records)
    assert all(axes[a] >= 14 for a in AXES), axes
    srcs = Counter(r["source_dataset"] for r in records)
    assert all(srcs[s] >= 12 for s in SOURCES), srcs
    for a in AXES:
        sevs = {r["severity"] for r in records if r["axis"] == a}
        assert {1, 2} <= sevs, (a, sevs)
    assert all(f[1] in BOUNDARY_TYPES for f in flaws)
    assert len(records) >= 90


def write_csv(records, path):
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=COLUMNS, quoting=csv.QUOTE_MINIMAL, lineterminator="\r\n")
    w.writeheader()
    for r in records:
        w.writerow(r)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(buf.getvalue())


def write_jsonl(records, path):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for r in records:
            f.write(json.dumps({c: r[c] for c in COLUMNS}, ensure_ascii=False) + "\n")


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def write_readme(records, flaws, path):
    n = len(records)
    axes = Counter(r["axis"] for r in records)
    sev = Counter(r["severity"] for r in records)
    srcs = Counter(r["source_dataset"] for r in records)
    groups = Counter(r["group_id"] for r in records)
    multi = sorted(g for g, c in groups.items() if c > 1)
    cross = Counter((r["axis"], r["severity"]) for r in records)
    pct = lambda k: f"{100 * k / n:.0f}%"

    parts = [
        "# ForceBench Studio sample data",
        "",
        "A small, realistic candidate pool that the ForceBench Studio team wrote so a new user can "
        "walk the whole workflow (import, packets, annotation, agreement, adjudication, quality "
        "control, split, export, evaluation) without bringing data of their own.",
        "",
        "Every passage, claim and rationale here was written by the ForceBench Studio team for "
        "this sample. The passages imitate the style of cited sources (trial summaries, court "
        "rulings, history texts, earnings reports, release notes, public-health guidance and "
        "so on), but the studies, courts, companies, figures and people in them are invented; "
        "the few real place names carry invented facts. They are not real citations and must not be quoted as facts. The "
        "`source_dataset` and `source_id` values only mimic the provenance format of the "
        "resources the paper draws on; no row was copied from those resources.",
        "",
        "## Files",
        "",
        "- `candidates.csv`: UTF-8, RFC 4180 (fields with commas, quotes or line breaks are "
        "quoted; records end in CRLF), one header row.",
        "- `candidates.jsonl`: the same rows in the same order, one JSON object per line; "
        "`severity` is an integer, every other value a string.",
        "- `build_sample.py`: holds the rows as Python data and regenerates all three files "
        "deterministically (`python3 sample-data/build_sample.py`). Edit rows there, never in the "
        "generated files, so CSV and JSONL cannot drift apart.",
        "",
        "## Columns",
        "",
        table(["column", "meaning"], [
            ["`id`", "unique row id, `fb-0001` ..."],
            ["`group_id`", "rows built from the same context and passage share it; splits "
                           "never separate a group"],
            ["`source_dataset`", "provenance family (ExpertQA, AttributedQA, GaRAGe, LFQA, "
                                 "Stanford-GenSearch)"],
            ["`source_id`", "id within that family; may be empty"],
            ["`context`", "the question or answer context a user asked"],
            ["`passage`", "the cited passage, the only evidence an annotator may use"],
            ["`evidence_span`", "suggested shortest verbatim substring of `passage` that decides "
                                "the support boundary"],
            ["`calibrated_claim`", "suggested wording the passage licenses (c_safe)"],
            ["`raised_claim`", "suggested minimally stronger variant on one axis (c_raised)"],
            ["`repair`", "wording that restores what the passage warrants"],
            ["`rationale`", "one sentence: the passage licenses X, but the raised claim states "
                            "stronger Y"],
            ["`axis`", "suggested primary force axis: relation, modality, scope, temporal, "
                       "numeric"],
            ["`severity`", "suggested severity: 1 subtle, 2 clear, 3 high-impact"],
            ["`construction_family`", "how the raised claim was made from the calibrated one, read "
                                      "from the two wordings: " + "; ".join(
                                          f"`{k}`: {v}" for k, v in FAMILIES.items())],
        ]),
        "",
        "All suggested fields are pre-annotation drafts. Annotators write their own values; "
        "final labels come only from adjudication.",
        "",
        "## Counts",
        "",
        f"{n} rows in {len(groups)} groups; {len(multi)} groups hold more than one row "
        f"({', '.join(multi)}).",
        "",
        table(["axis", "rows", "sev 1", "sev 2", "sev 3"],
              [[a, axes[a], cross[(a, 1)], cross[(a, 2)], cross[(a, 3)]] for a in AXES]
              + [["total", n, sev[1], sev[2], sev[3]]]),
        "",
        table(["severity", "rows", "share"],
              [[s, sev[s], pct(sev[s])] for s in (1, 2, 3)]),
        "",
        table(["source_dataset", "rows"], [[s, srcs[s]] for s in SOURCES]),
        "",
        "Rows with characters that exercise the importer: a quoted court passage with commas and "
        "double quotes, passages with non-ASCII names and an em dash (Zürich, São Paulo), en-dash "
        "ranges with percentages (12–18%, 20–35%), a Unicode minus sign (−1.2%, −20 °C), a "
        "passage with a paragraph break inside it, and rows whose `source_id` is empty.",
        "",
        "## Answer key",
        "",
        f"{len(flaws)} rows are deliberately flawed and should be rejected "
        "(`reject_not_force_gap`) with the boundary type below. They look like ordinary drafts: "
        "their suggested axis, severity and rationale are what a drafter would have written. "
        "Every other row is meant to be accepted as a force gap with the suggested axis.",
        "",
        table(["id", "suggested axis / severity", "boundary type", "flaw"],
              [[rid, f"{axis} / {s}", f"`{bt}`", note] for rid, bt, note, axis, s in flaws]),
        "",
    ]
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(parts))


def main():
    records, flaws = assemble()
    check(records, flaws)
    write_csv(records, os.path.join(HERE, "candidates.csv"))
    write_jsonl(records, os.path.join(HERE, "candidates.jsonl"))
    write_readme(records, flaws, os.path.join(HERE, "README.md"))
    print(f"wrote {len(records)} rows, {len(flaws)} flawed")


if __name__ == "__main__":
    main()
