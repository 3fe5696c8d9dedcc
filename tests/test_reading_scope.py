"""Scope of the main reader: a cue word is a training trouble only when it is said of a training run.

Everyday English uses the reader's words too ("stuck in traffic", "hang on", "my nan", "sorry for your loss",
"sales exploded"), a healthy run is described with movement words ("the loss goes down steadily"), and concept
questions name troubles without having them ("what is a vanishing gradient?"). None of these is a complaint. The
near misses below say the same words of a training run and must still be read.

The sentences are written for this file (none is from the phrasing suite or the corpus). On first contact (before
the scope checks) the reader gave a trouble on 28 of the 55 texts that should give none (20 of 35 off-topic, 6 of 11
healthy, 2 of 9 questions); the 25 near misses were all read. (One off-topic sentence, a laptop that crashed during a
movie, was replaced by a bike crash, also a false alarm then: a laptop is machinery a run may well be on.)
"""

from __future__ import annotations

import pytest

from knowledge.vocabulary import VOCABULARY
from tests.reading import obs

# -- off-topic everyday text that uses the reader's words: nothing read at all
NOTHING = [
    "I was stuck in traffic on the way to work",
    "hang on, let me grab a coffee first",
    "my nan is visiting us this weekend",
    "sorry for your loss, she was a lovely person",
    "I'm still dealing with the loss of my father",
    "I baked a batch of cookies and they came out burnt",
    "the kids exploded with laughter at the joke",
    "our opinions diverge on politics",
    "my brother crashed his bike yesterday",
    "the party really blew up after midnight",
    "my phone keeps freezing when I open the camera app",
    "the traffic light is stuck on red",
    "I feel stuck in my career",
    "the gradient of this hill is steep",
    "the meeting went down well with the team",
    "prices went up again at the supermarket",
    "the river level is rising after the storm",
    "my sourdough starter isn't rising at all",
    "the train was late and the platform was crowded",
    "I missed my train because the bus broke down",
    "her fever spiked overnight but she is fine now",
    "the dog keeps barking at night",
    "the neighbours' wifi keeps dropping out",
    "our football team is on a losing streak",
    "the heater takes forever to warm up",
    "the washing machine hangs at the spin cycle",
    "my mood has been flat all week",
    "the car battery died in the cold",
    "the elevator is stuck between two floors",
    "the website crashed when the tickets went on sale",
    "sales exploded after the ad campaign",
    "my grandmother makes the best naan",
    "the picture hangs crooked on the wall",
    "the dishwasher throws an error code every time",
    "the fridge is making a humming noise",
    # (everyday words one slip away from a training quantity, everyday steps named with another thing, and the
    # idiom said of a phone line: the review x27a's scope and slip rules keep these silent)
    "the mode is stuck on eco",
    "my nose is stuck",
    "the date is stuck",
    "trading crashed today",
    "these jeans don't fit, I'm stuck",
    "exports crashed after the tariffs",
    "the oil pipeline exploded last night",
    "hang on the line please",
    "what is causing the traffic jam?",
    "what is going on here",
    # (review x27c) a frame's defect affirmed away or said of something else
    "each time I evaluate, the result is deterministic",
    "evaluating the same checkpoint again gives the same accuracy every time, it is deterministic",
    "I normalize the raw images the same way for training and validation",
    "the same images never appear in both train and val, I checked",
    "user ids start at 1 not 0 in my database",
    # (review x27c) cues of everyday words put no text on topic
    "my boss predicts salaries will plateau",
    "I predict house prices will crash next year",
    "economists forecast energy demand to explode this winter",
    "my fridge uses no augmentation and it crashed",
]

# -- a healthy run described with movement words: no trouble read (its measured figures may be read as context)
HEALTHY = [
    "the loss goes down steadily and the accuracy keeps climbing",
    "validation loss is falling along with the training loss",
    "my model reached 92% accuracy and the curves look healthy",
    "the run finished overnight without any problems",
    "both losses dropped smoothly over 20 epochs",
    "val accuracy improved every epoch",
    "the loss decreased from 2.3 to 0.4 and the test accuracy is 95%",
    "gpu utilisation sits at 98% and throughput is great",
    "everything trains as expected on 8 gpus",
    "training converges nicely, the curves look textbook",
    "the training loss keeps dropping and val loss follows it",
]

# -- concept questions (and a healthy run with a question): read as a question at most, no trouble and no setting of
# the run (the architecture a question names may be read: the user may well train one)
QUESTIONS = [
    "what does weight decay do?",
    "how do I pick a batch size for a small dataset?",
    "why do people use warmup with transformers?",
    "can you explain what a vanishing gradient is?",
    "what is the difference between an epoch and a step?",
    "when does gradient clipping help?",
    "which gpu should I buy for deep learning under 1000 dollars?",
    "training is going well, just curious how dropout helps",
    "everything converges fine, I only wonder what label smoothing does",
]

# -- near misses: the same words said of a training run, read as the trouble they name
MUST_READ = [
    ("the run hangs at the first all-reduce", "symptom", "hang"),
    ("stuck at 0.69 loss since the start", "symptom", "not_learning"),
    ("the loss went down at first then plateaued", "loss_behavior", "plateau_after_learning"),
    ("training crashed with a CUDA error after two epochs", "symptom", "crash"),
    ("my loss turns into nan after a few hundred steps", "loss_behavior", "nan_or_inf"),
    ("the dataloader freezes when num_workers is above zero", "boundary_topic", "dataloader_failure"),
    ("the gpu runs out of memory on the first batch", "concern", "cuda_oom"),
    ("the loss explodes as soon as I raise the learning rate", "symptom", "unstable"),
    ("validation accuracy drops while training accuracy keeps rising", "symptom", "overfitting"),
    ("the script throws an error on the backward pass", "symptom", "crash"),
    ("it just hangs after printing epoch 1", "symptom", "hang"),
    ("the loss went down nicely but then exploded at step 3000", "symptom", "unstable"),
    ("training is stuck, no output for an hour", "symptom", "hang"),
    ("my job crashed overnight", "symptom", "crash"),
    ("it keeps crashing", "symptom", "crash"),
    ("the machine hangs when I start training", "symptom", "hang"),
    ("my laptop crashes whenever I start training", "symptom", "crash"),
    ("the loss of my model is stuck at 0.69", "symptom", "not_learning"),
    ("the loss goes down and then goes up again", "symptom", "unstable"),
    # (no word of training beside them, but said of the run's machinery, its curves, or watched by the user)
    ("I keep getting an error", "symptom", "crash"),
    ("python throws an error", "symptom", "crash"),
    ("pip install hangs", "symptom", "hang"),
    ("I see spikes", "symptom", "unstable"),
    ("the curve goes crazy", "symptom", "unstable"),
    ("the kl explodes", "symptom", "unstable"),
    # (review x27a) a "what is ..." question about something seen in the run: causing, wrong, these, the curve moving
    ("what is causing the nan?", "loss_behavior", "nan_or_inf"),
    ("what is wrong with the training, loss is nan", "loss_behavior", "nan_or_inf"),
    ("what are these spikes in the loss", "loss_behavior", "spiking"),
    ("explain what the loss spikes mean", "loss_behavior", "spiking"),
    # (review x27a) a model, task or topic the readers name is a word of training ("qwen", "detectron2")
    ("my t5 crashes", "symptom", "crash"),
    ("qwen crashes", "symptom", "crash"),
    ("roberta is stuck", "symptom", "not_learning"),
    ("convnext hangs", "symptom", "hang"),
    ("detectron2 hangs", "symptom", "hang"),
    ("quantization crashes", "symptom", "crash"),
    # (review x27a) a slip of a training quantity as the subject, and the run's other names, machines and libraries
    ("the los is stuck", "symptom", "not_learning"),
    ("the lose is stuck", "symptom", "not_learning"),
    ("modle is stuck", "symptom", "not_learning"),
    ("accuarcy stuck at 10%", "symptom", "not_learning"),
    ("my NN is stuck", "symptom", "not_learning"),
    ("vllm crashes", "symptom", "crash"),
    ("unsloth crashes", "symptom", "crash"),
    ("xgboost hangs", "symptom", "hang"),
    ("fit hangs", "symptom", "hang"),
    ("my experiments keep crashing", "symptom", "crash"),
    ("the pipeline crashes", "symptom", "crash"),
    ("my rtx 3090 crashes", "symptom", "crash"),
    ("compile hangs", "symptom", "hang"),
    # (review x27a) "hang on" followed by where the run stops is no everyday imperative
    ("hang on first batch when using ddp", "symptom", "hang"),
    ("Hang on step 0 with 2 gpus", "symptom", "hang"),
    # (review x27c) a wanted movement set against something else, a second direction of the same curve, a slip
    # of a movement word, or a word the reader does not know said of the loss
    ("loss goes down and up", "not_working_aspect", "loss"),
    ("train loss drops but val loss does not", "not_working_aspect", "loss"),
    ("the loss goes down but the generated text is repeated", "not_working_aspect", "loss"),
    ("eval_loss 0.61 0.62 0.64 0.66 after epoch 2 while train loss drops", "not_working_aspect", "loss"),
    ("the loss platues", "loss_behavior", "plateau_after_learning"),
    ("the loss is plateu", "loss_behavior", "plateau_after_learning"),
    ("the loss is xyzzy", "not_working_aspect", "loss"),
    # (review x27c) a dataloader that hangs is a hang, though its error family is one that stops runs
    ("the dataloader hangs after 1000 steps", "symptom", "hang"),
    ("Hang tight, the dataloader hangs after 1000 steps", "symptom", "hang"),
]

# -- a wanted movement with a value, a limit or a doubt said of it: not a healthy run, something is read
NOT_HEALTHY = [
    "the loss converges to 0.69",
    "loss drops to zero in the first epoch",
    "accuracy improves only to 60% then stops",
    "the loss goes down suspiciously fast",
]

_QUESTION_READINGS = {("symptom", "direct_question")}
"""What a concept question may read: that it is a question (its topic is read as ``question_topic``)."""


def _troubles(got: dict) -> dict:
    """The readings that say something is wrong: the vocabulary's symptom and judgement groups."""
    return {k: v for k, v in got.items()
            if VOCABULARY[k].group in ("symptom", "judgement") and (k, v) not in _QUESTION_READINGS
            and k != "question_topic"}


@pytest.mark.parametrize("text", NOTHING)
def test_off_topic_text_reads_nothing(text: str) -> None:
    assert obs(text) == {}


@pytest.mark.parametrize("text", HEALTHY)
def test_a_healthy_run_reads_no_trouble(text: str) -> None:
    assert _troubles(obs(text)) == {}


@pytest.mark.parametrize("text", QUESTIONS)
def test_a_concept_question_reads_no_trouble_and_no_setting_of_the_run(text: str) -> None:
    got = obs(text)
    assert _troubles(got) == {}, got
    assert not any(VOCABULARY[k].group in ("config", "metrics") for k in got), got


@pytest.mark.parametrize(("text", "name", "value"), MUST_READ)
def test_a_near_miss_about_training_is_read(text: str, name: str, value: str) -> None:
    assert obs(text).get(name) == value, obs(text)


@pytest.mark.parametrize("text", NOT_HEALTHY)
def test_a_wanted_movement_with_a_value_limit_or_doubt_is_still_read(text: str) -> None:
    assert obs(text) != {}


# -- (review x27c) a printed series of one value per run of a sweep, or of another measure, is no curve
SWEEPS = [
    "my val loss is 0.41, 0.45, 0.52 for batch sizes 32, 64 and 128, which one should I pick?",
    "the val loss was 0.30, 0.33, 0.37 across 3 seeds, is that much variance normal?",
    "val loss is 0.35 0.37 0.40 on cifar10, cifar100 and imagenet",
    "my loss values are 12, 15, 19 percent higher than the paper",
    "the loss goes 2, 3, 4 minutes per epoch",
]

CURVES = [
    ("eval loss: 1.21, 1.25, 1.38, 1.52", "val_loss_rising", True),
    ("the train loss goes 1.3 1.9 2.8 4.1", "loss_behavior", "diverging"),
]


@pytest.mark.parametrize("text", SWEEPS)
def test_a_series_across_runs_or_in_another_unit_has_no_direction(text: str) -> None:
    got = obs(text)
    assert "val_loss_rising" not in got and got.get("loss_behavior") != "diverging", got


@pytest.mark.parametrize(("text", "name", "value"), CURVES)
def test_a_printed_curve_still_moves(text: str, name: str, value: object) -> None:
    assert obs(text).get(name) == value, obs(text)


# -- (review x27c) what a frame would read, said so that it is no defect: that frame's reading is absent
NOT_THE_FRAME = [
    ("each rank logs the same loss because I all_reduce it before logging", "rank_data"),
    ("my model gives one label for every input image, one of 10 classes", "predictions_constant"),
]

FRAME_STILL = [
    ("each time I evaluate the same checkpoint the result is different", "nondeterminism", "evaluation"),
    ("the same images appear in both train and val", "val_in_train", True),
    ("all 4 processes print the same loss at every step", "rank_data", "identical"),
    ("my labels start at 1 not 0", "label_check", "not_zero_based"),
    ("the model gives one label for all test images", "predictions_constant", True),
    ("trained on normalized inputs but predict on raw images", "preprocessing_mismatch", True),
]


@pytest.mark.parametrize(("text", "name"), NOT_THE_FRAME)
def test_a_frame_said_away_reads_nothing_of_it(text: str, name: str) -> None:
    assert name not in obs(text), obs(text)


@pytest.mark.parametrize(("text", "name", "value"), FRAME_STILL)
def test_a_frame_said_plainly_is_still_read(text: str, name: str, value: object) -> None:
    assert obs(text).get(name) == value, obs(text)
