"""Requests, pressure, questions and trends read from everyday phrasings (issue 19, everyday17): questions about muP,
the training loop's calls and their order, the ways to prevent overfitting; a tuning request with its scope (every
hyperparameter, or the learning rate alone); deadlines, hierarchy and quick questions said in other words; a
preference run that does not help; convergence too slow as what is not working; a train/validation gap that widens;
weights initialised from a plain normal; the run's own trouble as the reason for weighing a newer optimizer; and
overfitting named as a setting's purpose. Each reading is checked where it must fire and where another subject, a
negation, a past search or a purpose must keep it silent; the sentences are new, not the suite's."""

from __future__ import annotations

import pytest

from tests.reading import assert_reads, obs


@pytest.mark.parametrize("text, expected", [
    # muP named in a question: the question is about it, not about the LR or optimizer it carries
    ("is it worth setting up mup so the best lr from a 20M model carries over to 800M?", {"question_topic": "mup"}),
    ("does maximal update parametrization let me reuse my tuned learning rate when I go wider?",
     {"question_topic": "mup"}),
    ("which library should I use for mu-transfer with adam?", {"question_topic": "mup"}),
    # the loop's own calls and their order
    ("should scheduler.step() come before or after optimizer.step()?", {"question_topic": "training_loop"}),
    ("what should my training loop look like with an eval pass every epoch?", {"question_topic": "training_loop"}),
    # ... not a question (a setting in use, a symptom)
    ("my training loop is slow, every step takes 3 s", {"question_topic": None}),
    ("I call scheduler.step() every batch and the lr is 0 after the first epoch", {"question_topic": None}),
    ("which optimizer should I use for a small vit?", {"question_topic": "optimizer"}),
    ("loss function choice for a ranking model?", {"question_topic": "loss_function"}),
    # sharding asked about by what is sharded or split, not the data's shards
    ("how should I shard the model weights over 8 gpus?", {"question_topic": "sharding"}),
    ("how can I split my model across two gpus, it doesn't fit on one?", {"question_topic": "sharding"}),
    ("the dataset is stored as 512 shards, how do I read them in parallel?", {"question_topic": None}),
    # the ways to prevent overfitting asked about, not a purpose of a setting
    ("what are good ways to avoid overfitting on 2k images?", {"question_topic": "overfitting"}),
    ("which techniques reduce overfitting the most for text classifiers?", {"question_topic": "overfitting"}),
    ("how can I ensure the network doesn't overfit?", {"question_topic": "overfitting"}),
    ("I added dropout to combat overfitting and now the training loss does not go down",
     {"question_topic": None, "symptom": "not_learning"}),
    ("weight decay 0.5 against overfitting, and now the loss is stuck", {"symptom": "not_learning"}),
    ("my net overfits badly, I use dropout to reduce overfitting but it still overfits", {"symptom": "overfitting"}),
    ("how do I reduce overfitting in my lstm?", {"symptom": "overfitting"}),
    ("how many tensors must backward() return in my autograd Function? it raises an error", {"question_topic": None}),
])
def test_questions_and_purposes(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("I want to tune every hyperparameter of my unet at once",
     {"vague_query": "optimize_hyperparameters", "hparam_scope": "all"}),
    ("what's a good way to search all my hparams together?", {"hparam_scope": "all"}),
    ("hyperparameter search for my gan: all of them, where do I begin?", {"hparam_scope": "all"}),
    ("I'd like to optimise the hyperparameters, but only the lr for now",
     {"vague_query": "optimize_hyperparameters", "hparam_scope": "learning_rate"}),
    ("how do I tune just the learning rate of my cnn?", {"hparam_scope": "learning_rate"}),
    # a search already done, a limit denied, a learning rate changed alone: no request of that scope
    ("I optimized all hyperparameters last week and the loss still spikes", {"hparam_scope": None}),
    ("help me tune all the hyperparameters, not just the lr", {"hparam_scope": "all"}),
    ("changing the learning rate alone did nothing, the loss is flat", {"hparam_scope": None}),
    # "not one at a time" says the opposite of a one-at-a-time search
    ("I want to search the hyperparameters jointly, not one at a time", {"tuning_method": None}),
    ("I tune one hyperparameter at a time, is that ok?", {"tuning_method": "one_at_a_time"}),
    # the verb "optimize" is no slip of "optimizer"
    ("how should I optimize the hyperparameters of a small mlp?", {"question_topic": "tuning"}),
])
def test_tuning_request_scope(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("my presentation is in 3 hours and the loss turned nan", {"pressure": "time"}),
    ("the thesis is due tomorrow, training diverges", {"pressure": "time"}),
    ("I'm running out of time, loss explodes after 500 steps", {"pressure": "time"}),
    ("the demo in 2 hours went well, now I want to speed up training", {"pressure": None}),
    ("my pi says the lr is fine but the loss goes up", {"pressure": "authority"}),
    ("I was instructed by my manager to keep adam at 0.01, and the loss diverges", {"pressure": "authority"}),
    ("according to our advisor the warmup is enough, yet the loss spikes", {"pressure": "authority"}),
    ("according to the paper the lr is 0.1", {"pressure": None}),
    ("short q: what weight decay for adamw?", {"pressure": "quick_question"}),
    ("just quickly, is bf16 ok on a 3090?", {"pressure": "quick_question"}),
    ("here's a quick one-liner I use to compute the loss", {"pressure": None}),
])
def test_pressure_in_other_words(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("my KTO run doesn't improve anything over the sft model",
     {"vague_query": "preference_not_working", "task": "preference_tuning"}),
    ("couldn't get orpo to work on my data", {"vague_query": "preference_not_working"}),
    ("dpo on my 7B: results are poor, where should I look", {"vague_query": "preference_not_working"}),
    ("DPO improved the chat model a lot", {"vague_query": None}),
    ("does DPO need a reference model?", {"vague_query": None}),
    # convergence too slow as what is not working
    ("the model isn't working well, it takes ages to converge",
     {"vague_query": "not_working_well", "not_working_aspect": "convergence_speed"}),
    ("not working nicely: convergence is very slow", {"not_working_aspect": "convergence_speed"}),
    ("the model converges fast and the accuracy is good", {"not_working_aspect": None}),
])
def test_requests_that_name_what_fails(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("the gap between training and validation loss keeps growing every epoch",
     {"gap_trend": "widening", "symptom": "overfitting"}),
    ("my generalisation gap increases with every epoch", {"gap_trend": "widening"}),
    ("train and val curves drift apart more and more after epoch 10", {"gap_trend": "widening"}),
    ("the training loss pulls further away from the validation loss", {"gap_trend": "widening"}),
    ("the gap between train and val is not growing", {"gap_trend": None}),
    ("the gap between my two runs grows", {"gap_trend": None}),
    ("the data loading gap grows each epoch", {"gap_trend": None}),
])
def test_a_widening_gap(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("for every conv I call nn.init.normal_(m.weight, 0, 1) and the loss is inf at the start",
     {"init_scheme": "normal"}),
    ("the weights are drawn from a standard normal, the logits are huge", {"init_scheme": "normal"}),
    ("I initialize the parameters with a gaussian, std 1", {"init_scheme": "normal"}),
    ("nn.init.kaiming_normal_(m.weight) on the convs", {"init_scheme": None}),
    ("the initial loss looks normal (2.3) but later it is nan", {"init_scheme": None}),
    ("the weights are not initialized from a normal distribution", {"init_scheme": None}),
    ("my inputs are gaussian noise and the loss is flat", {"init_scheme": None}),
])
def test_a_plain_normal_init(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("my adamw loss keeps spiking, should I try lion instead?",
     {"switch_reason": "instability", "considering": "lion", "vague_query": "modern_optimizer"}),
    ("adamw converges slowly on my vit, should I switch to muon?", {"switch_reason": "slow_convergence"}),
    # a switch made already, or a healthy run: no reason from trouble
    ("I switched from adamw to lion and now the loss spikes", {"switch_reason": None}),
    ("my adamw run is healthy, but should I switch to muon anyway?", {"switch_reason": "none"}),
])
def test_trouble_as_the_reason_for_a_switch(text: str, expected: dict) -> None:
    assert_reads(text, expected)


@pytest.mark.parametrize("text, expected", [
    ("what can I do to make my unet train faster?",
     {"vague_query": "improve_model", "improve_target": "speed"}),
    ("tips for faster training of a small bert?", {"improve_target": "speed"}),
    ("is there a way to speed things up on a single T4?", {"improve_target": "speed"}),
    # a run said to be faster or slower is no wish
    ("with channels_last it trains faster, but the loss is nan", {"improve_target": None}),
    ("I made inference faster with onnx", {"improve_target": None}),
])
def test_speed_wished_for(text: str, expected: dict) -> None:
    assert_reads(text, expected)


def test_nothing_from_a_plain_healthy_sentence() -> None:
    read = obs("training runs fine, loss goes down as expected")
    assert not {"gap_trend", "init_scheme", "hparam_scope", "pressure", "vague_query"} & set(read)
