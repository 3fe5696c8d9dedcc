"""Breadth of the coarse reading: vague everyday training complaints get at least a tentative reading, and text
that is no complaint (off-topic, a concept question, a healthy or negated run) gets no guess.

The sentences are written for this file (none is from the phrasing suite or the corpus): the short, vague way
people first describe a training problem, across the families (not learning, unstable, overfitting, slow,
memory, hang, crash, data and labels, metrics, distributed, fine-tuning).
"""

from __future__ import annotations

import pytest

from expert.text import read_text
from tests.reading import obs

# -- vague complaints the main reader understands nothing of: the coarse fallback's tentative family
GUESSED = [
    ("training does nothing, the numbers barely budge", "symptom", "not_learning"),
    ("the results don't get better however long I train", "symptom", "not_learning"),
    ("my net is not picking anything up", "symptom", "not_learning"),
    ("my run falls apart halfway through training", "symptom", "unstable"),
    ("the gradients get out of hand", "symptom", "unstable"),
    ("it takes a whole day to get through one epoch", "symptom", "slow_training"),
    ("training is taking way longer than it should", "symptom", "slow_training"),
    ("my model is too big for my GPU", "concern", "cuda_oom"),
    ("the training process eats all the memory", "symptom", "memory_growth"),
    ("the dataloader locks up", "symptom", "hang"),
    ("my training script keeps dying", "symptom", "crash"),
    ("the training falls over with a weird message", "symptom", "crash"),
    ("the program quits unexpectedly during training", "symptom", "crash"),
    ("the labels in my dataset are messed up", "label_check", "misaligned"),
    ("the training dataset has lots of duplicates", "symptom", "data_problem"),
    ("my augmentations seem to ruin the training images", "symptom", "data_problem"),
    ("the pretrained weights don't seem to load", "concern", "model_wont_load"),
    # (a healthy word before a contrast silences nothing: what follows the "but" is read)
    ("the model does well in training but bombs on the test set", "symptom", "overfitting"),
]

# -- vague complaints the main reader already reads (the fallback must leave them be)
READ = [
    "my model just isn't getting any better",
    "the network refuses to learn anything",
    "accuracy hovers at 10 percent no matter what",
    "my classifier seems to ignore the input",
    "the model predicts only one class",
    "nothing improves after the first epoch",
    "the loss barely moves",
    "training goes haywire after a while",
    "the loss suddenly shoots up out of nowhere",
    "the loss goes wild after a few thousand steps",
    "the loss bounces around like crazy",
    "training becomes chaotic when I raise the learning rate",
    "the loss jumps up and down a lot",
    "validation keeps getting worse while training improves",
    "my model memorises the training set",
    "it scores high on train but falls apart on real data",
    "the model does not work on new examples it never saw in training",
    "training crawls",
    # (a run said to die is a crash the main reader names, as "crashes" is: tests/test_reading_b30.py)
    "training dies without any message",
    "my gpu sits idle most of the time during training",
    "the data loading is the bottleneck of my training",
    "throughput of my training is terrible",
    "the model trains at a snail's pace",
    "I keep running out of GPU memory",
    "the card runs out of vram with bigger batches",
    "RAM usage keeps creeping up until the box dies during training",
    "memory use goes up every epoch",
    "training just freezes at some point",
    "my script hangs forever at the first batch",
    "the training gets stuck and nothing happens",
    "the training job stops responding after a few epochs",
    "the training just sits there doing nothing after startup",
    "I get a shape mismatch when I run the model",
    "I think some of my labels are wrong",
    "my annotations don't line up with the images",
    "the classes in my dataset are very unbalanced",
    "the metrics in tensorboard look off",
    "my accuracy numbers don't make sense",
    "validation accuracy is higher than training accuracy, weird",
    "the logged loss looks wrong",
    "wandb shows nothing for my training run",
    "multi-gpu training is slower than one gpu",
    "ddp training hangs on the second node",
    "the ranks end up with different weights",
    "distributed training gives different results than a single gpu",
    "my torchrun job gets stuck at startup",
    "fine-tuning bert gives garbage results",
    "my lora finetune doesn't seem to do anything",
    "fine-tuning makes the model worse than before",
    "the results of my model are bad",
    "my model performs poorly",
    "training doesn't work",
    "the loss looks weird",
    "my model is terrible",
]

# -- complaints nothing reads yet (known gaps: "new" is too common a word to name unseen data; no family for a GPU
# left idle, a model that "fails", forgetting after fine-tuning, or a metric "too good to be true")
NOT_YET = [
    "great on training data, terrible on anything new",
    "the model fails as soon as I start training",
    "my f1 score seems too good to be true",
    "only one of my GPUs is used during training",
    "fine-tuning ruins the pretrained model",
    "after finetuning my model forgot everything it knew",
]

# -- text that is no training complaint: nothing read at all
NOTHING = [
    "no errors, everything fine",
    "training went fine, thanks for the help",
    "the model trained well and the accuracy is good",
    "can you explain what an epoch is",
    "I love hiking in the mountains",
    "my car makes a weird noise when braking",
    "what time is it in tokyo",
    "everything works as expected",
    "the gpu memory is fine",
    "my training is not slow at all",
    "explain gradient descent to me",
    "I am writing a blog post about neural networks",
    "my dog ate my homework",
    "my plants are not growing",
    "the memory of my phone is full",
    "the accuracy is great and training was fast",
    "my kids keep fighting",
    "the training went smoothly, no problems at all",
    "what is a loss function",
    "my friend's model works and so does mine",
    # (guards of the fallback's own words: a step taken, a unit that dies, a phrase that names no trouble)
    "the relu units die in my network",
    "I removed duplicate images from the dataset before training",
    "setting weight decay does nothing to my training",
    "the dataloader does not pick up my new files",
    "the new optimizer is no better than adam for training",
    "training is fine but I want it faster",  # (a contrast to a wish: no trouble after the "but")
    "it worked fine on train, but I wonder why the test loss is good",
    "no crash, no nan, the run finished",  # (a crash denied before it: the main reader's own negation)
    # (words of a trouble said of something that is no training quantity, in a text of no training; an everyday
    # imperative; a healthy run described with the directions training wants)
    "the coffee machine is broken again",
    "the loss went down nicely and validation improved too",
    "the weather is slow to warm up this spring",
    "the printer throws an error every morning",
    "the stock market crashed today",
    "the bus was stuck in traffic for an hour",
    "hang in there, the training will finish",
]

# -- concept questions: read as a question (its topic), never as a trouble
QUESTIONS = [
    "what is a learning rate",
    "how does batch normalization work",
    "what's the difference between adam and sgd",
    "what does dropout do in a network",
]

# -- no complaint, but the main reader (not the fallback) reads a trouble: known false alarms of the cue list and
# the composed readings, left for their own fix
MAIN_READER_FALSE_ALARMS: list[str] = []


def _guess(text: str) -> dict[str, object]:
    """The readings the fallback gave, as ``name -> value`` (marked "(a guess)")."""
    return {r.observation.name: r.observation.value for r in read_text(text)
            if r.weak and r.observation.source.endswith("(a guess)")}


@pytest.mark.parametrize(("text", "name", "value"), GUESSED)
def test_a_vague_complaint_gets_a_tentative_family(text: str, name: str, value: str) -> None:
    assert _guess(text) == {name: value}
    assert obs(text) == {name: value}  # the guess alone: nothing else was understood


@pytest.mark.parametrize("text", READ)
def test_a_complaint_the_reader_understands_is_read_and_not_guessed(text: str) -> None:
    assert obs(text)
    assert _guess(text) == {}


@pytest.mark.parametrize("text", NOT_YET)
@pytest.mark.xfail(strict=True, reason="no coarse family for these words yet (see NOT_YET)")
def test_known_gaps(text: str) -> None:
    assert obs(text)


def test_few_everyday_complaints_read_nothing() -> None:
    complaints = [t for t, _n, _v in GUESSED] + READ + NOT_YET
    nothing = [t for t in complaints if not obs(t)]
    assert len(nothing) / len(complaints) <= 0.08, nothing


@pytest.mark.parametrize("text", NOTHING)
def test_no_complaint_reads_nothing(text: str) -> None:
    assert obs(text) == {}


@pytest.mark.parametrize("text", QUESTIONS)
def test_a_concept_question_is_a_question_not_a_trouble(text: str) -> None:
    got = obs(text)
    assert got.get("symptom") == "direct_question", got
    assert _guess(text) == {}


@pytest.mark.parametrize("text", MAIN_READER_FALSE_ALARMS)
def test_the_fallback_adds_no_guess_where_the_main_reader_misreads(text: str) -> None:
    assert _guess(text) == {}


@pytest.mark.parametrize("text", MAIN_READER_FALSE_ALARMS)
@pytest.mark.xfail(strict=True, reason="a false alarm of the main reader (when fixed, move the text to NOTHING)")
def test_main_reader_false_alarms(text: str) -> None:
    assert obs(text) == {}


# -- a text whose lower case is longer than itself ("İ" lower-cases to two characters): the offsets stay the text's
@pytest.mark.parametrize(("text", "name", "value"), [
    ("İzmir lab here: the training process eats all the memory", "symptom", "memory_growth"),
    ("my training script keeps dying, says İrem", "symptom", "crash"),
    ("İİİ the model does well in training but bombs on the test set", "symptom", "overfitting"),
])
def test_a_text_whose_lower_case_grows_still_gets_its_guess(text: str, name: str, value: str) -> None:
    assert len(text.lower()) > len(text)
    assert _guess(text) == {name: value}
    words = next(r.observation.source for r in read_text(text) if r.observation.name == name)
    plain = text.replace("İ", "I")
    # the guess names the same words as in the text without the character (the offsets were not shifted)
    assert words == next(r.observation.source for r in read_text(plain) if r.observation.name == name)


def test_a_negated_guess_in_a_text_whose_lower_case_grows_is_still_silent() -> None:
    assert _guess("İzmir lab here: the training process does not eat all the memory") == {}
