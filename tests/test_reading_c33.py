"""Readings of complaint bodies nobody here wrote (c33): a third probe, from communities the others left out.

The probes of l31 (thread titles) and d32 (first sentences) drew on speed, memory, several GPUs, LLM fine-tuning
and resuming. This one paraphrases about 100 complaint bodies from threads they did not use and from situations
they hardly touched: DeepSpeed loss-scale overflow logs, preference tuning (DPO, GRPO), diffusion training whose
loss is noisy by nature, validation better than training under dropout, batch norm in eval mode, pasted autograd,
device-side-assert and dtype errors, gradient accumulation across GPUs, a loss with a per-epoch sawtooth, AMP NaN
after many epochs, gradient-norm spikes, and runs slowed by a library upgrade. Sources: GitHub issues of
DeepSpeed, trl, diffusers, transformers, peft, Lightning and model repositories; the PyTorch and fast.ai forums;
Stack Overflow, Cross Validated, Data Science and AI Stack Exchange. Each body is paraphrased keeping the user's
vocabulary, numbers and pasted lines; each carries the observations a careful expert reads from it, and a value of
None names a reading the text does not support (a reading there is wrong).

First contact, before any change made for it: 101 bodies, 186 stated observations, 150 read right (80.6%), 1 body
with nothing understood (1.0%), 4 with a wrong reading (4.0%). One annotation was corrected after it: the first
DeepSpeed body ends "is this normal??" and had demanded no symptom at all, where the direct question the reader
makes of it is right; it now states the benign skips (``scaler_skips=occasional``), which makes 187 observations.

After the mechanisms tested below (a loss scale at its floor in the scaler's own log line, and DeepSpeed's per-rank
overflow line kept benign; a switch's option set to zero; spikes said to be regular; two library versions compared,
or said to be all that differs; a denied fall said to have stopped "anymore"; a change "hardly" made; slight noise on
a flat curve): 161 of 187 read right (86.1%), no body read as nothing, 1 with a wrong reading. A run said to be on
one device is left unread, as the project decided (``tests/test_talk.py::test_quoted_settings_are_not_guessed``):
the four bodies that state one stay xfail. Each body still read short or wrong is marked ``xfail(strict=True)``
with what it misses, so closing a gap (or opening a new one) fails the test.

i33 (issue 19), after settings said in flags or terse words ("-b 128", "lr 1e-4 cosine", "adamw at 5e-5", "set the
number of classes to 2", "max_grad_norm to 1"), the clipping limit kept apart from the gradient norm
("max_grad_norm=0" is clipping off, never zero gradients), classes said balanced, a split's "error" read as its loss,
an error said to be over ("OOM gone but ...") no longer winning over the one that replaced it, a NaN's onset said
in an aside ("early (around epoch 8)") and one class output "everywhere": 171 of 187 read right (91.4%), none read
as nothing, none with a wrong reading.
"""

from __future__ import annotations

import pytest

from tests.reading import obs, same_value, score_probes

NAN = {"loss_behavior": "nan_or_inf"}
NANA = {"loss_behavior": "nan_or_inf", "nan_onset": "after_steps"}
SLOW = {"symptom": "slow_training"}
UPG = {"symptom": "slow_training", "recent_change": "library_upgrade"}
AUTOGRAD = {"boundary_topic": "autograd_error"}
ASSERT = {"boundary_topic": "cuda_assert"}
DTYPE = {"boundary_topic": "dtype_mismatch"}
DEVICE = {"boundary_topic": "device_mismatch"}
VBT = {"val_better_than_train": True}
PROBES: list[tuple[str, dict]] = [
    # DeepSpeed / fp16 loss-scale logs: early halving is calibration, a scale stuck at its floor is a collapse
    ("finetuning gpt-neo with deepspeed, the first steps each print [deepscale] OVERFLOW! Rank 0 Skipping step. "
     "Attempted loss scale: 16777216.0, reducing to 8388608.0 and then it halves again, 13/63645 "
     "[00:28<37:36:38, 2.13s/it]. is this normal??", {"loss_scale_issue": None, "scaler_skips": "occasional"}),
    ("it recovered by itself after a few steps: [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: "
     "4294967296, reducing to 2147483648 ... down to 67108864, then training continued normally",
     {"loss_scale_issue": None}),
    ("the OVERFLOW message is gone after the first 6 steps, log shows step=10, skipped=6. then two more OVERFLOW "
     "lines at step=500 and now step=510, skipped=8. harmless right?", {"loss_scale_issue": None}),
    ("Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run. right before "
     "it: Attempted loss scale: 8, reducing to 4 ... Attempted loss scale: 4, reducing to 2 at 382/2724",
     {"loss_scale_issue": True}),
    ("SDXL stage 1 training with accelerate + deepspeed: OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 2, "
     "reducing to 1, the bar shows noise_step_loss=nan at step 17/6000 and then a traceback",
     {"loss_scale_issue": True, "loss_behavior": "nan_or_inf"}),
    ("T5-11B multitask with deepspeed zero2 prints OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1, "
     "reducing to 1 on every single step from about 98/24128 on",
     {"loss_scale_issue": True, "scaler_skips": "persistent"}),
    ("Gradient overflow. Skipping step, loss scaler 0 reducing loss scale to 0.5 and the next line reduces it to "
     "0.25, the loss never moves", {"loss_scale_issue": True}),
    # preference tuning
    ("with the dpo trainer the loss goes to 0.0 quickly: {'loss': 0.0, 'rewards/chosen': 3.87, 'rewards/rejected': "
     "-11.44, 'rewards/accuracies': 1.0, 'rewards/margins': 15.31, 'epoch': 0.46}. is that ok?",
     {"task": "preference_tuning"}),
    ("DPO on Llama from a lora SFT model: both rewards stay at 0 and the loss never goes down, {'loss': 0.6932, "
     "'rewards/chosen': 0.0, 'rewards/rejected': 0.0, 'rewards/margins': 0.0, 'epoch': 0.38}",
     {"task": "preference_tuning", "symptom": "not_learning"}),
    ("GRPO run on GSM8K is learning nothing: completions/mean_length 256, clipped_ratio 1, reward 0, reward_std 0, "
     "loss 0, grad_norm 0", {"task": "preference_tuning", "symptom": "not_learning"}),
    ("copy-pasted the GRPO quickstart from the README, single GPU: almost every completion is exactly 256 tokens "
     "and the reward is 0 at most steps", {"task": "preference_tuning", "multi_gpu": False}),
    ("during GRPO training the completion length keeps getting shorter, with every reward and every task. with "
     "verl it doesn't happen", {"task": "preference_tuning"}),
    ("my DPO reward margins go up nicely but the chosen rewards go negative too, both chosen and rejected logps "
     "fall", {"task": "preference_tuning"}),
    # diffusion: a noisy loss is the norm there
    ("fine-tuning stable diffusion with train_text_to_image.py on 1 A100, the train loss does not decrease but "
     "stays the same with some fluctuations for 15K steps, although the validation images get closer to my data",
     {"multi_gpu": False, "symptom": "not_learning"}),
    ("training InteractDiffusion on the HOI dataset following the readme, the loss isn't decreasing, instead it's "
     "fluctuating. is this normal?", {"loss_behavior": "oscillating"}),
    ("trained ddim on another dataset, 1200 epoches and the loss still isn't going down, sometimes it becomes "
     "large", {"symptom": "not_learning"}),
    ("decoder on CUB-200 with lr 4e-3: the training loss drops from around 1 to 0.1 in the first epoch, then "
     "sharply increased to 0.8 again and after that decreases steadily; after 400 epochs it only generates noise",
     {"learning_rate": 0.004}),
    ("DiT-S/8 with the exact training script: the training loss does not decrease after a few hundred steps, "
     "from around 500 steps avg_loss converged to ~0.2", {"loss_behavior": "plateau_after_learning"}),
    ("LDM text-to-image, train/loss_simple_step hardly budges from around 1.00 and the samples are just noise",
     {"symptom": "not_learning"}),
    ("inpainting controlnet, batchsize 4 x grad accumulation of 16: the loss just fluctuated over time and never "
     "went down", {"batch_size": 4, "grad_accum_steps": 16, "loss_behavior": "oscillating"}),
    ("the batch loss always oscillates in the range 0.02~0.07 and does not go down much even after 100 epochs, "
     "but the generated images do improve", {"loss_behavior": "oscillating"}),
    ("sdxl lora on 1356 image-text pairs, --train_batch_size=7 --learning_rate=1e-04 --lr_warmup_steps=0 "
     "--mixed_precision=fp16: training loss and validation loss don't converge. tried other epochs, lr, rank, "
     "nothing worked",
     {"batch_size": 7, "learning_rate": 1e-4, "warmup": False, "mixed_precision": "fp16", "dataset_size": 1356}),
    ("v_loss, i_loss and n_loss don't seem to get lower after 80 epochs, the model only generates noise",
     {"symptom": "not_learning"}),
    # validation better than training
    ("after adding Dropout(0.4) layers the val loss remains lower than the train loss all the time, is a "
     "constant gap like this acceptable? model is 3 stacked LSTMs", {**VBT, "architecture": "rnn"}),
    ("our validation data gets better accuracy and lower loss than our training data, for every hidden layer "
     "size we tried. Dropout(0.5), batch_size=10, epochs=50", {**VBT, "batch_size": 10}),
    ("autoencoder for anomaly detection on warranty data: the validation loss is lower than the train loss which "
     "is totally weird", VBT),
    ("in the lesson the training_loss is always larger than validation_loss. even with dropout off (ps=0) the "
     "validation loss gets tiny while the training loss stays large", VBT),
    ("MLP on MNIST, the validation error is always lower than the training error: Epoch 1 of 500 took 1.858s, "
     "training loss: 1.233348, validation loss: 0.405868, validation accuracy: 88.78 %",
     {**VBT, "metric_kind": "accuracy", "val_metric": 0.8878}),
    ("non-linear regression, with a dropout of 0.05 the validation MAE comes out below the training MAE", VBT),
    ("val acc higher than train acc in every epoch (train 0.81 val 0.86), I use heavy augmentation on train only",
     {**VBT, "metric_kind": "accuracy"}),
    # eval mode and batch norm
    ("CIFAR10 with BN, training accuracy is perfect. testing with model.train(True) gives 76% but with "
     "model.eval() only 10%, 0% in pretty much every category", {"metric_kind": "accuracy", "model_eval_mode": None}),
    ("with batch normalization my accuracy jumps from 55% to 31% within one epoch, train and test alike; if I "
     "don't call model.eval() in the accuracy function it stops fluctuating",
     {"metric_kind": "accuracy", "symptom": None}),
    # pasted errors
    ("run_clm_pt_with_peft.py: `use_cache=True` is incompatible with gradient checkpointing. then UserWarning: "
     "None of the inputs have requires_grad=True. Gradients will be None and finally RuntimeError: element 0 of "
     "tensors does not require grad and does not have a grad_fn", AUTOGRAD),
    ("fine-tuning LLaMA-2 7B on an A100 40 GB, at first cuda out of memory; lowering the batch size didn't help "
     "so I enabled model.gradient_checkpointing_enable(). OOM gone but backward now fails with RuntimeError: "
     "element 0 of tensors does not require grad and does not have a grad_fn. enable_input_require_grads() didn't "
     "fix it", AUTOGRAD),
    ("accelerator.backward(loss) throws RuntimeError: element 0 of tensors does not require grad and does not "
     "have a grad_fn in train_utils.py line 178, anyone else?", AUTOGRAD),
    ("during training I get: Trying to backward through the graph a second time, but the saved intermediate "
     "results have already been freed. Specify retain_graph=True when calling .backward() or autograd.grad() the "
     "first time.", AUTOGRAD),
    ("GAN in lightning with two optimizer steps in one training step: RuntimeError: one of the variables needed "
     "for gradient computation has been modified by an inplace operation", {**AUTOGRAD, "framework": "lightning"}),
    ("spiking resnet as backbone, loss.backward() raises Trying to backward through the graph a second time (or "
     "directly access saved tensors after they have already been freed). adding retain_graph=True didn't help",
     AUTOGRAD),
    ("my own 2-class dataset: CUDA error: device-side assert triggered. on CPU it says IndexError: Target 10 is out "
     "of bounds. batch size 4, target shape torch.Size([4, 513, 513])", {**ASSERT, "batch_size": 4}),
    ("ClassNLLCriterion.cu:108: cunn_ClassNLLCriterion_updateOutput_kernel: block: [0,0,0], thread: [1,0,0] "
     "Assertion `t >= 0 && t < n_classes` failed. right at the first iteration", ASSERT),
    ("RuntimeError: cuda runtime error (59) : device-side assert triggered at THCTensorMath.cu:26, raised from "
     "l.backward() in run_training", ASSERT),
    ("set the number of classes to 2 and training keeps dying with Assertion `idx_dim >= 0 && idx_dim < "
     "index_size && \"index out of bounds\"` failed. then RuntimeError: CUDA error: device-side assert triggered",
     {**ASSERT, "num_classes": 2}),
    ("token classification with run_ner.py works for other models but this one gives CUDA error: device-side "
     "assert triggered; on a single CPU the error says the target is out of bounds", ASSERT),
    ("nn.CrossEntropyLoss gives RuntimeError: expected scalar type Long but found Float, my labels are read from "
     "a csv", DTYPE),
    ("BCEWithLogitsLoss blows up with RuntimeError: result type Float can't be cast to the desired output type "
     "Long", DTYPE),
    ("F.cross_entropy raises RuntimeError: Expected floating point type for target with class probabilities, got "
     "Long", DTYPE),
    ("RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! "
     "(when checking argument for argument index in method wrapper__index_select) when I run the training code",
     DEVICE),
    ("plugged the module into the yolov8 backbone, the model loads but can't train: Expected all tensors to be on "
     "the same device, but found at least two devices, cuda:0 and cpu!", DEVICE),
    # gradient accumulation and several GPUs
    ("same num_gpus * batch_size * grad_accum_steps (1/4/1, 2/2/1, 2/1/2) but each setting gives a different "
     "loss and gradient norm, AdamW with lr=0.01 and zero-3 cpu offload", {"optimizer": "adamw",
                                                                          "learning_rate": 0.01}),
    ("I kept train_batch_size the same and only increased num_gpus, and the loss went up",
     {"multi_gpu": True, "recent_change": "gpu_count"}),
    ("training on multi GPU with gradient accumulation steps > 1 gives no real speedup over a single GPU, with "
     "accumulation 1 it does", {"multi_gpu": True, "symptom": "slow_training", "multi_gpu_speedup": "none"}),
    ("with accelerator.gather on the loss inside accelerate.accumulate(model) the loss is the same on every GPU "
     "and the gradients are all zero", {"multi_gpu": True}),
    ("ddpo with 2 gpus and gradient accumulation: the reward fluctuates much more than on a single GPU with the "
     "same total batch", {"multi_gpu": True, "dist_world_size": 2}),
    # a loss with a pattern
    ("LSTM text classifier, Adam with lr 0.001 and batches of 512: the loss drops sharply at the beginning of each "
     "epoch and then slowly rises until the next one. lowering the lr only makes the pattern smaller",
     {"optimizer": "adam", "learning_rate": 0.001, "batch_size": 512, "loss_periodic": True,
      "epoch_start_jump": None, "architecture": "rnn"}),
    ("my training loss has regular spikes. SSD in keras, the spikes line up with the last smaller batch of every "
     "epoch", {"loss_periodic": True}),
    ("why does the training loss go up at the beginning of each epoch?", {"epoch_start_jump": True}),
    ("the loss curve is a sawtooth: it falls within each epoch and jumps back up when the next epoch starts",
     {"epoch_start_jump": True}),
    # AMP / NaN after a while
    ("local reconstruction pretraining on my own dataset, the NaN loss shows up early (around epoch 8). it goes "
     "away when I disable AMP with amp.autocast(enabled=False)", NANA),
    ("Epoch 0, Current learning rate: 0.001, train_loss nan, val_loss nan, Pseudo dice [0.0, 0.0, 0.0]",
     {**NAN, "learning_rate": 0.001}),
    ("added AMP to my code and after some time the loss suddenly turns nan: lr 0.1 nan after 6k iterations, lr "
     "0.01 after 5k. lowering the lr and raising the batch size didn't prevent it", NANA),
    ("the grad is NaN after 20~30 epochs with amp on 10 thousand hours of training data, fine on 1 thousand hours",
     {"nan_onset": "after_steps", "nan_location": "gradients"}),
    ("ASR in lightning with precision=16 (native AMP), multi GPU, learning rate = 2: training loss nan with the "
     "warning NaN or Inf found in input tensor",
     {**NAN, "mixed_precision": "fp16", "learning_rate": 2.0, "multi_gpu": True}),
    ("T2t_vit_14 on ImageNet-100 with 4 gpus, -b 128 --lr 1e-3 --weight-decay .03, NaN even without --amp: at "
     "epoch 209 the train loss is nan and from 210 on every column is nan",
     {**NANA, "batch_size": 128, "learning_rate": 0.001, "weight_decay": 0.03, "multi_gpu": True,
      "dist_world_size": 4}),
    ("pretraining Swin-B for 800 epochs it stops with 'loss is nan, stopping training!'", NAN),
    ("yolov8 loss becomes nan after a few epochs. turning fp16 off fixes it but then I can only use a very small "
     "batch; gradient clipping is already in the code", {**NANA, "grad_clipping": True}),
    ("Intel B580, resnet50 on cifar10 with AMP, batch_size=16, SGD lr 0.001 momentum 0.9: NaN in the loss after a "
     "few iterations", {**NANA, "batch_size": 16, "learning_rate": 0.001, "optimizer": "sgd_momentum"}),
    # gradient norms
    ("LoRA r=16 on a 31B model, one H200, bf16, per_device_train_batch_size=1, gradient_accumulation_steps=8, lr "
     "1e-4 cosine, warmup_steps=20, adamw_8bit, max_grad_norm=1.0. the loss looks healthy (1.0-1.6 and going "
     "down) but the pre-clip grad_norm explodes on single steps: 14.98, 9.78, 92.10, then 11140.00",
     {"batch_size": 1, "grad_accum_steps": 8, "learning_rate": 1e-4, "lr_schedule": "cosine", "warmup": True,
      "optimizer": "adamw_8bit", "grad_clipping": True, "mixed_precision": "bf16", "multi_gpu": False}),
    ("qwen2.5-14b lora sft with deepspeed z3, bf16: true, learning_rate: 1.0e-4, and the log says 'loss': 0.000, "
     "'grad_norm': nan", {"mixed_precision": "bf16", "learning_rate": 1e-4}),
    ("LoRA SFT of a vision llama: at certain steps in the middle the loss suddenly drops to 0 and grad_norm becomes "
     "exactly 1 (I set max_grad_norm to 1)", {"loss_collapses_zero": True, "grad_clipping": True}),
    ("training llama in bf16: before the first weight update the loss is 2, after it the loss is 10 and then it "
     "goes down slowly, just like from random weights", {"mixed_precision": "bf16"}),
    ("occasional 'grad_norm': nan while fine-tuning a 32B AWQ model with lora, fp16: true, max_grad_norm: 0.5",
     {"mixed_precision": "fp16", "grad_clipping": True}),
    # speed and library upgrades
    ("my training speed goes down within 1 epoch: after around 10% of the batches the GPU utilization drops from "
     "a constant 100% to fluctuating", SLOW),
    ("after updating pytorch from 0.4 to 1.1 training got much slower, 0.57s/it before and 2.02s/it now, one P100 "
     "with a batch size of 16", {**UPG, "batch_size": 16, "multi_gpu": False}),
    ("torch 1.12.1 with cuda 10.2 runs slower than torch 1.8.2 with cuda 10.2", UPG),
    ("all the code is the same, only the pytorch version differs: Train: [ 1] took 13.62s on v0.1.12 and 294.03s "
     "on v0.2.0", UPG),
    ("after a git pull of torch my usual CNN is about 10 times slower and the GPU card is not fully used", UPG),
    ("with torch.compile the first epoch is very slow, the first 500+ batches (batch size 64) run at 1% of the "
     "later speed", {**SLOW, "batch_size": 64}),
    ("after upgrading to torch 2.10 the recompilations for my 8 shapes take several hours instead of 30 minutes",
     {"recent_change": "library_upgrade"}),
    # overfitting, stalls and other curves
    ("~3K images, binary classification, val is unstable: epoch [6]: training loss: 0.52 - acc: 0.79 - val_loss: "
     "2.30 - val_acc: 0.50, epoch [10]: training loss: 0.34 - acc: 0.88 - val_loss: 2.81 - val_acc: 0.49",
     {"metric_kind": "accuracy", "num_classes": 2}),
    ("ResNet50 on only 896 images for binary classification, big gap between the training and validation loss; "
     "with more augmentation the training curve still decreases while the validation curve stays flat",
     {"architecture": "cnn", "symptom": "overfitting", "num_classes": 2}),
    ("my test loss is increasing but my train loss keeps decreasing", {"val_loss_rising": True,
                                                                       "symptom": "overfitting"}),
    ("BERT for NLI with binary cross entropy, batch size 8, Adam learning rate = 0.001, 80 epochs and the loss "
     "converges on ~0.68 and won't go lower. 10,000 samples, balanced",
     {"batch_size": 8, "optimizer": "adam", "learning_rate": 0.001, "dataset_size": 10000,
      "architecture": "transformer", "class_imbalance": False}),
    ("bert-base-cased fine-tune: at epochs 2 and 3 the validation accuracy is 0.5 with recall 1.0 and precision "
     "0.5", {"metric_kind": "accuracy", "val_metric": 0.5, "predictions_constant": True}),
    ("the loss is around 0.85 after the first epoch and still 0.85 after the 37th", {"symptom": "not_learning"}),
    ("train and val accuracy don't change at all from epoch to epoch", {"metric_kind": "accuracy",
                                                                        "symptom": "not_learning"}),
    ("blockdrop cl_training: train and test accuracy keep dropping after 600 epochs. is that normal?",
     {"metric_kind": "accuracy"}),
    ("after one iteration the loss is already 0.0000 and stays there for the whole run",
     {"loss_collapses_zero": True}),
    ("the train loss goes down fine but the validation loss jumps up and down between 0.14 and 2.81 from epoch "
     "to epoch", {"symptom": None}),
    ("with lr 0.1 my resnet diverges after a couple of epochs, with 0.01 it trains fine",
     {"lower_lr_stable": True}),
    ("I moved the batch size from 32 to 256 and the validation accuracy dropped by 5 points",
     {"recent_change": "batch_size", "batch_size": 256}),
    ("switched from adam to sgd and now the loss barely moves", {"optimizer": "sgd"}),
    ("weights are the same before and after optimizer.step(), all grads are None", {"step_grads": "none"}),
    ("the grads of the first conv layers are around 1e-9 while the last layer has 1e-2",
     {"grad_norm_trend": "vanishing"}),
    ("the loss goes nan in the first iteration already, lr 1e-3 adam", {**NAN, "nan_onset": "immediate",
                                                                        "learning_rate": 0.001}),
    ("after around 3000 steps the loss slowly creeps up again and ends higher than where it started",
     {"loss_behavior": "diverging"}),
    ("loss spikes every now and then but always comes back down within a few hundred steps",
     {"spike_recovers": True}),
    ("the loss spikes to 11 right at the end of warmup and then slowly recovers", {"unstable_early": True,
                                                                                  "warmup": True}),
    ("my model always predicts the same value for every input in this regression",
     {"predictions_constant": True, "task": "regression"}),
    ("95% of my labels are 0 and the model just outputs 0 everywhere", {"class_imbalance": True,
                                                                        "predictions_constant": True}),
    ("I don't use any warmup, just adamw at 5e-5 with a linear decay", {"warmup": False, "optimizer": "adamw",
                                                                       "learning_rate": 5e-5,
                                                                       "lr_schedule": "linear"}),
    ("not using mixed precision, plain fp32, and the loss still goes to nan after 2k steps",
     {"mixed_precision": "none", **NANA}),
]

FACTS = 187
READ_FLOOR = 172
NOTHING_CEILING = 0
WRONG_CEILING = 0
ONE_DEVICE_UNREAD = ("misses multi_gpu=False: one device said is left unread by design "
                     "(test_talk.py::test_quoted_settings_are_not_guessed, test_reading_l29)")
# Bodies still read short or wrong, by their first 55 characters: what each misses or misreads.
XFAIL: dict[str, str] = {
    'copy-pasted the GRPO quickstart from the README, single': ONE_DEVICE_UNREAD,
    'fine-tuning stable diffusion with train_text_to_image.p': ONE_DEVICE_UNREAD,
    'after updating pytorch from 0.4 to 1.1 training got muc': ONE_DEVICE_UNREAD,
    'DiT-S/8 with the exact training script: the training lo': 'misses loss_behavior: "does not decrease after a few '
                                                               'hundred steps" may also mean it never did',
    'sdxl lora on 1356 image-text pairs, --train_batch_size=': 'misses dataset_size (a count of image-text pairs)',
    'our validation data gets better accuracy and lower loss': 'misses val_better_than_train: the splits stand apart '
                                                               'from their figures ("validation data gets ... than '
                                                               'our training data")',
    'F.cross_entropy raises RuntimeError: Expected floating ': 'misses boundary_topic (the target dtype error said '
                                                               'the other way round)',
    'with accelerator.gather on the loss inside accelerate.a': 'misses multi_gpu ("on every GPU")',
    'LSTM text classifier, Adam with lr 0.001 and batches of': 'misses loss_periodic (reads the per-epoch drop as '
                                                               'epoch_start_drop, not as a period)',
    'LoRA r=16 on a 31B model, one H200, bf16, per_device_tr': ONE_DEVICE_UNREAD,
    'all the code is the same, only the pytorch version diff': 'misses symptom (two epoch times, 13.62s against 294s)',
    'the loss is around 0.85 after the first epoch and still': 'misses symptom (the same value at two times)',
    'blockdrop cl_training: train and test accuracy keep dro': 'misses metric_kind ("train and test accuracy")',
    'after one iteration the loss is already 0.0000 and stay': 'misses loss_collapses_zero (0.0000 after one step)',
    'the grads of the first conv layers are around 1e-9 whil': 'misses grad_norm_trend (first layers\' grads tiny '
                                                               'against the last\'s)',
}


def _score() -> tuple[int, int, list[str], list[tuple[str, dict]], list[tuple[str, dict]]]:
    """(stated observations, read right, phrasings read as nothing, wrong readings, misses)."""
    return score_probes(PROBES)


def _reads_right(text: str, expected: dict) -> None:
    got = obs(text)
    assert got, "nothing read"
    bad = {k: got.get(k) for k, v in expected.items()
           if (v is None and k in got) or (v is not None and not (k in got and same_value(got[k], v)))}
    assert not bad, (bad, got)


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param(t, e, id=t[:40], marks=[pytest.mark.xfail(strict=True, reason=XFAIL[t[:55]])] if t[:55] in XFAIL
                 else []) for t, e in PROBES])
def test_each_body_reads_its_observations(text: str, expected: dict) -> None:
    _reads_right(text, expected)


def test_the_probe_bodies_keep_their_recall_floor() -> None:
    """The figures may only improve: recall, bodies read as nothing, bodies with a wrong reading."""
    facts, read, nothing, wrong, missed = _score()
    assert facts == FACTS
    assert read >= READ_FLOOR, (read, facts, missed)
    assert len(nothing) <= NOTHING_CEILING, nothing
    assert len(wrong) <= WRONG_CEILING, wrong


if __name__ == "__main__":
    f, r, n, w, m = _score()
    print(f"bodies {len(PROBES)} facts {f} read {r} ({100 * r / f:.1f}%) nothing {len(n)} "
          f"({100 * len(n) / len(PROBES):.1f}%) wrong {len(w)} ({100 * len(w) / len(PROBES):.1f}%)")
    for label, rows in (("nothing", [(t, "") for t in n]), ("wrong", w), ("missed", m)):
        print(f"--- {label}")
        for t, b in rows:
            print("  ", t[:90], "=>", b)


# -- the mechanisms the probe lacked, each tested both ways -------------------------------------------------------


@pytest.mark.parametrize("text", ["OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1, reducing to 1",
                                  "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 2, reducing to 1",
                                  "Exception: Current loss scale already at minimum - cannot decrease scale anymore."])
def test_a_loss_scale_at_its_floor_in_the_scalers_log_is_a_collapse(text: str) -> None:
    got = obs(text)
    assert got.get("loss_scale_issue") is True and got.get("scaler_skips") == "persistent", got


@pytest.mark.parametrize("text", ["[deepscale] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 16777216.0, "
                                  "reducing to 8388608.0", "OVERFLOW! Rank 3 Skipping step. Attempted loss scale: "
                                  "65536, reducing to 32768", "Attempted loss scale: 16, reducing to 8"])
def test_a_loss_scale_still_high_is_calibration(text: str) -> None:
    got = obs(text)
    assert "loss_scale_issue" not in got and got.get("symptom") != "unstable", got


@pytest.mark.parametrize("text", ["--lr_warmup_steps=0 and lr 1e-4", "warmup_steps=0", "num_warmup_steps: 0",
                                  "warmup_ratio=0.0"])
def test_a_switch_option_set_to_zero_is_the_switch_off(text: str) -> None:
    assert obs(text).get("warmup") is False


@pytest.mark.parametrize("text", ["warmup_steps=500", "warmup_ratio=0.05", "warmup_steps=10", "warmup_ratio=0.03",
                                  "I use warmup"])
def test_a_switch_option_set_above_zero_is_on(text: str) -> None:
    assert obs(text).get("warmup") is True


@pytest.mark.parametrize("text", ["my training loss has regular spikes", "the loss shows regular jumps"])
def test_spikes_said_to_come_regularly_are_periodic(text: str) -> None:
    assert obs(text).get("loss_periodic") is True


@pytest.mark.parametrize("text", ["I use a regular schedule and the loss spikes", "the loss spikes now and then",
                                  "the loss regularly jumps around"])
def test_spikes_with_no_regularity_said_are_not_periodic(text: str) -> None:
    assert "loss_periodic" not in obs(text)


@pytest.mark.parametrize("text", ["torch 1.12.1 with cuda 10.2 runs slower than torch 1.8.2 with cuda 10.2",
                                  "the same code on pytorch 0.2.0 is 20x slower than on 0.1.12",
                                  "all the code is the same, only the pytorch version differs",
                                  "after a git pull of torch my usual CNN is about 10 times slower"])
def test_two_library_versions_compared_are_a_library_change(text: str) -> None:
    assert obs(text).get("recent_change") == "library_upgrade"


@pytest.mark.parametrize("text", ["my model with lr 1.5 is worse than with 2.0", "torch 2.1 is slower than tensorflow",
                                  "torch 2.1 is installed and training is slower than I expected",
                                  "I pulled the latest data with git pull and the loss is nan"])
def test_no_library_versions_compared_is_no_library_change(text: str) -> None:
    assert obs(text).get("recent_change") != "library_upgrade"


@pytest.mark.parametrize("text", ["the loss doesnt go down anymore", "the loss no longer decreases",
                                  "after 500 steps the loss does not go down anymore",
                                  "the loss does not improve anymore"])
def test_a_fall_said_to_have_stopped_is_a_plateau_after_learning(text: str) -> None:
    assert obs(text).get("loss_behavior") == "plateau_after_learning"


@pytest.mark.parametrize("text", ["the loss does not decrease", "I no longer use adam and the loss does not decrease",
                                  "the loss does not decrease no matter how long I train"])
def test_a_fall_denied_with_no_stop_said_is_no_plateau(text: str) -> None:
    got = obs(text)
    assert got.get("symptom") == "not_learning" and got.get("loss_behavior") != "plateau_after_learning", got


@pytest.mark.parametrize("text", ["the loss hardly budges", "the loss barely moves", "val accuracy barely changes"])
def test_a_change_hardly_made_is_no_change(text: str) -> None:
    assert obs(text).get("symptom") == "not_learning"


@pytest.mark.parametrize(("text", "behaviour"), [("the loss barely decreases", "decreasing_slowly"),
                                                 ("the loss changes a lot", None),
                                                 ("the loss slowly changes", None)])
def test_a_direction_hardly_taken_or_a_change_made_stays_what_it_is(text: str, behaviour: str | None) -> None:
    got = obs(text)
    assert got.get("loss_behavior") == behaviour and (behaviour is not None or got.get("symptom") != "not_learning")


@pytest.mark.parametrize("text", ["the loss stays the same with some fluctuations",
                                  "the train loss does not decrease but stays the same with some fluctuations",
                                  "the loss does not decrease, only small oscillations"])
def test_slight_noise_on_a_flat_curve_is_the_stall(text: str) -> None:
    got = obs(text)
    assert got.get("symptom") == "not_learning" and got.get("loss_behavior") != "oscillating", got


@pytest.mark.parametrize("text", ["the loss oscillates wildly", "the loss has small fluctuations",
                                  "the loss fluctuates a lot and stays high"])
def test_noise_alone_or_large_stays_a_swing(text: str) -> None:
    assert obs(text).get("loss_behavior") == "oscillating"
