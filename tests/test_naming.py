"""pybai.naming: one numbering (from 0) and the arms' labels, checked, shown and read back."""

import numpy as np
import pytest

from pybai import BestArmProblem, Gaussian, FixedConfidence, GaussianEnvironment
from pybai.exceptions import InvalidParameterError
from pybai.naming import answer_name, arm_index, arm_name, arm_names, check_labels, source_name

LABELS = ("control", "new-checkout", "two-step")


@pytest.mark.parametrize("labels, message", [
    (["a", "b"], "one label per arm (3 labels, 2 given)"),
    (["a", "b", "a"], 'distinct names (label "a" is given twice)'),
    (["a", "", "c"], "non-empty names"),
    (["a", " b", "c"], "without surrounding spaces"),
    (["a", "b\nc", "d"], "control characters"),
    (["a", "2", "c"], 'label "2" would read as an arm index'),
    (["a", 2, "c"], "label 2 is not a string"),
    ("abc", "a list of 3 strings"),
])
def test_bad_labels_are_refused_with_one_line(labels, message):
    with pytest.raises(InvalidParameterError, match="'labels' parameter of Owner") as info:
        check_labels(labels, 3, "labels", "Owner")
    assert message in str(info.value) and "\n" not in str(info.value)


def test_names_count_from_zero_and_show_labels_with_their_number():
    assert check_labels(np.array(LABELS), 3) == LABELS and check_labels(None, 3) is None
    assert arm_name(0) == "arm 0" and arm_name(2, LABELS) == "two-step (arm 2)"
    assert answer_name(np.int64(1)) == "arm 1" and answer_name(-1, LABELS) == "no feasible arm (-1)"
    assert answer_name([0, 2]) == "arms 0, 2"
    assert answer_name(np.array([2, 0]), LABELS) == "two-step (arm 2), control (arm 0)"
    assert arm_names(2) == ["arm 0", "arm 1"] and arm_names(3, LABELS) == list(LABELS)
    assert source_name(4, LABELS, 2) == "two-step (arm 2) / subpopulation 0"


def test_a_label_or_an_index_reads_back_as_the_arm():
    assert [arm_index(t, LABELS) for t in ("two-step", " 1 ", "0", "control")] == [2, 1, 0, 0]
    with pytest.raises(ValueError, match="unknown label 'new-chekout'"):
        arm_index("new-chekout", LABELS)
    with pytest.raises(ValueError, match=r"arm 3 is not in \[0, 2\]"):
        arm_index("3", LABELS)
    with pytest.raises(ValueError, match="no labels"):
        arm_index("control", None)


def test_environments_and_problems_take_labels_and_check_their_count():
    env = GaussianEnvironment([0.0, 1.0, 0.5], labels=list(LABELS))
    assert env.labels == LABELS and env.structure()["labels"] == list(LABELS)
    assert "labels" not in GaussianEnvironment([0.0, 1.0]).structure()
    problem = BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(0.1), labels=LABELS)
    assert problem.labels == LABELS and "labels" not in problem.to_dict()  # presentation only
    with pytest.raises(InvalidParameterError, match="'labels' parameter of BestArmProblem"):
        BestArmProblem(3, Gaussian(1.0, n_sources=3), FixedConfidence(0.1), labels=["a", "b"])
