"""The zoo's models: each built from a config with random weights (no downloads), small.

One entry per model: its suite (timm, torchvision, transformers), a builder that returns the
module and its example inputs, and whether its training step is run. The builders import their
library lazily, so a model whose library is missing is skipped with one line (the H200 has
timm and transformers but maybe not torchvision).

The way each suite builds its models follows PyTorch's own dynamo benchmarks
(benchmarks/dynamo/timm_models.py: `create_model(..., pretrained=False)` and a normalised
random image batch; huggingface.py: `AutoConfig` -> `from_config`, random token ids, the
model's own labels for training; torchbench.py for the torchvision ones), made small enough
that a cold compile on two CPU cores takes seconds, not minutes: 2 layers, hidden 64, images of
32-64 px, batch 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import torch

BATCH = 2
SEQ = 16


@dataclass(frozen=True)
class ZooModel:
    """One model of the zoo: how to build it, and what a step feeds it."""

    name: str
    suite: str
    build: Callable[[], tuple[torch.nn.Module, tuple, dict]]
    train: bool = True       # run a training step as well as inference
    # Keyword arguments only the training step passes (a detection model's targets: in train
    # mode torchvision's detectors take them and return their losses), built after BUILD.
    train_kwargs: Callable[[], dict] | None = None


def _image(px: int, batch: int = BATCH) -> torch.Tensor:
    """timm_models.py's input: random ints in [0, 256), normalised."""
    x = torch.randint(256, size=(batch, 3, px, px)).to(torch.float32)
    return (x - x.mean()) / x.std()


# --- timm ------------------------------------------------------------------------------------

def _timm(name: str, px: int, **kw: Any) -> Callable[[], tuple[torch.nn.Module, tuple, dict]]:
    def build() -> tuple[torch.nn.Module, tuple, dict]:
        import timm

        model = timm.create_model(name, pretrained=False, num_classes=10, drop_rate=0.0, **kw)
        return model, (_image(px),), {}
    return build


TIMM = [
    ZooModel("timm_resnet18", "timm", _timm("resnet18", 32)),
    ZooModel("timm_resnet50", "timm", _timm("resnet50", 32)),
    ZooModel("timm_vit_tiny", "timm", _timm("vit_tiny_patch16_224", 32, img_size=32, depth=2)),
    ZooModel("timm_deit_tiny", "timm",
             _timm("deit_tiny_distilled_patch16_224", 32, img_size=32, depth=2)),
    ZooModel("timm_convnext_atto", "timm", _timm("convnext_atto", 32)),
    ZooModel("timm_efficientnet_b0", "timm", _timm("efficientnet_b0", 32)),
    ZooModel("timm_mobilenetv3_small", "timm", _timm("mobilenetv3_small_050", 32)),
    ZooModel("timm_regnetx_002", "timm", _timm("regnetx_002", 32)),
    ZooModel("timm_swin_tiny", "timm",
             _timm("swin_tiny_patch4_window7_224", 56, img_size=56, depths=(1, 1, 1, 1),
                   window_size=7)),
    ZooModel("timm_mixer_s32", "timm", _timm("mixer_s32_224", 64, img_size=64, num_blocks=2)),
    ZooModel("timm_densenet121", "timm", _timm("densenet121", 32)),
]


# --- torchvision -----------------------------------------------------------------------------

def _tv_classify(name: str, px: int, **kw: Any) -> Callable[[], tuple[torch.nn.Module, tuple, dict]]:
    def build() -> tuple[torch.nn.Module, tuple, dict]:
        import torchvision

        model = getattr(torchvision.models, name)(weights=None, num_classes=10, **kw)
        return model, (_image(px),), {}
    return build


def _tv_segment(name: str, px: int) -> Callable[[], tuple[torch.nn.Module, tuple, dict]]:
    def build() -> tuple[torch.nn.Module, tuple, dict]:
        import torchvision

        model = getattr(torchvision.models.segmentation, name)(
            weights=None, weights_backbone=None, num_classes=4, aux_loss=False)
        return model, (_image(px),), {}
    return build


def _tv_detect(name: str, px: int) -> Callable[[], tuple[torch.nn.Module, tuple, dict]]:
    """A detection model on a list of images (torchbench.py's detection models take a list),
    resized to PX by the model's own transform (min_size/max_size)."""
    def build() -> tuple[torch.nn.Module, tuple, dict]:
        import torchvision

        model = getattr(torchvision.models.detection, name)(
            weights=None, weights_backbone=None, num_classes=3, min_size=px, max_size=px)
        images = list(_image(px))
        return model, (images,), {}
    return build


def _tv_detect_tiny(kind: str, px: int) -> Callable[[], tuple[torch.nn.Module, tuple, dict]]:
    """Mask R-CNN or RetinaNet on a ResNet-18 FPN backbone (torchvision's own builders only
    offer ResNet-50, whose compile is minutes on two cores), built as those builders do."""
    def build() -> tuple[torch.nn.Module, tuple, dict]:
        from torchvision.models.detection import MaskRCNN, RetinaNet
        from torchvision.models.detection.backbone_utils import resnet_fpn_backbone
        from torchvision.ops.feature_pyramid_network import LastLevelP6P7

        if kind == "maskrcnn":
            backbone = resnet_fpn_backbone(backbone_name="resnet18", weights=None,
                                           trainable_layers=5)
            model = MaskRCNN(backbone, num_classes=3, min_size=px, max_size=px)
        else:  # retinanet_resnet50_fpn's P3-P7 from layers 2-4, on ResNet-18
            backbone = resnet_fpn_backbone(backbone_name="resnet18", weights=None,
                                           trainable_layers=5, returned_layers=[2, 3, 4],
                                           extra_blocks=LastLevelP6P7(256, 256))
            model = RetinaNet(backbone, num_classes=3, min_size=px, max_size=px)
        return model, (list(_image(px)),), {}
    return build


def _targets(px: int, masks: bool = False, batch: int = BATCH, boxes: int = 2
             ) -> Callable[[], dict]:
    """torchbench's detection training targets, small: per image BOXES boxes inside the
    image (x1 < x2, y1 < y2), their labels, and (Mask R-CNN) a binary mask per box."""
    def targets() -> dict:
        out = []
        for _ in range(batch):
            xy = torch.rand(boxes, 2) * (px / 2)
            wh = torch.rand(boxes, 2) * (px / 2 - 2) + 2
            t = {"boxes": torch.cat([xy, xy + wh], dim=1),
                 "labels": torch.randint(1, 3, (boxes,))}
            if masks:
                t["masks"] = (torch.rand(boxes, px, px) > 0.5).to(torch.uint8)
            out.append(t)
        return {"targets": out}
    return targets


def _tv_vit() -> tuple[torch.nn.Module, tuple, dict]:
    from torchvision.models.vision_transformer import VisionTransformer

    model = VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2,
                              hidden_dim=64, mlp_dim=128, num_classes=10)
    return model, (_image(32),), {}


TORCHVISION = [
    ZooModel("tv_resnet18", "torchvision", _tv_classify("resnet18", 32)),
    ZooModel("tv_mobilenet_v2", "torchvision", _tv_classify("mobilenet_v2", 32)),
    ZooModel("tv_shufflenet_v2", "torchvision", _tv_classify("shufflenet_v2_x0_5", 32)),
    ZooModel("tv_squeezenet", "torchvision", _tv_classify("squeezenet1_1", 64)),
    ZooModel("tv_vit", "torchvision", _tv_vit),
    ZooModel("tv_fcn_resnet50", "torchvision", _tv_segment("fcn_resnet50", 32)),
    ZooModel("tv_deeplabv3_mobilenet", "torchvision",
             _tv_segment("deeplabv3_mobilenet_v3_large", 32)),
    ZooModel("tv_lraspp_mobilenet", "torchvision", _tv_segment("lraspp_mobilenet_v3_large", 32)),
    ZooModel("tv_fasterrcnn_mobilenet", "torchvision",
             _tv_detect("fasterrcnn_mobilenet_v3_large_320_fpn", 64),
             train_kwargs=_targets(64)),
    ZooModel("tv_maskrcnn_resnet18", "torchvision", _tv_detect_tiny("maskrcnn", 64),
             train_kwargs=_targets(64, masks=True)),
    ZooModel("tv_retinanet_resnet18", "torchvision", _tv_detect_tiny("retinanet", 64),
             train_kwargs=_targets(64)),
]


# --- transformers ----------------------------------------------------------------------------

SMALL = dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=2, intermediate_size=128,
             vocab_size=512, max_position_embeddings=64)
VIT = dict(image_size=32, patch_size=8, num_hidden_layers=2, hidden_size=64, num_attention_heads=2,
           intermediate_size=128, num_labels=10)
LLAMA = dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, num_key_value_heads=2,
             intermediate_size=128, vocab_size=512, max_position_embeddings=64)
SEQ2SEQ = dict(encoder_layers=2, decoder_layers=2, d_model=64, encoder_attention_heads=2,
               decoder_attention_heads=2, encoder_ffn_dim=128, decoder_ffn_dim=128,
               vocab_size=512, max_position_embeddings=64)
DROPOUTS = ("hidden_dropout_prob", "attention_probs_dropout_prob", "dropout", "attention_dropout",
            "resid_pdrop", "embd_pdrop", "attn_pdrop", "dropout_rate", "activation_dropout",
            "hidden_dropout", "classifier_dropout_prob", "drop_path_rate", "layerdrop",
            "feat_proj_dropout", "final_dropout", "mask_time_prob", "mask_feature_prob")


def _tokens(vocab: int, batch: int = BATCH, seq: int = SEQ) -> torch.Tensor:
    return torch.randint(0, vocab, (batch, seq), dtype=torch.int64)


def _hf_inputs(kind: str, config: Any) -> dict:
    """huggingface.py's generate_inputs_for_model, small: token ids (and the model's own
    labels, so that training has the model's own loss), images, audio features."""
    vocab = getattr(config, "vocab_size", 0)
    if kind == "lm":
        ids = _tokens(vocab)
        return {"input_ids": ids, "labels": ids.clone()}
    if kind == "cls":
        return {"input_ids": _tokens(vocab), "labels": torch.randint(0, 2, (BATCH,))}
    if kind == "seq2seq":
        return {"input_ids": _tokens(vocab), "labels": _tokens(vocab, seq=8)}
    if kind == "whisper":
        return {"input_features": torch.randn(BATCH, config.num_mel_bins,
                                              2 * config.max_source_positions),
                "labels": _tokens(vocab, seq=8)}
    if kind == "audio":
        return {"input_values": torch.randn(BATCH, 1600), "labels": _tokens(vocab, seq=5)}
    px = config.image_size if isinstance(config.image_size, int) else config.image_size[0]
    if kind == "image":
        return {"pixel_values": _image(px), "labels": torch.randint(0, config.num_labels, (BATCH,))}
    if kind == "segment":
        return {"pixel_values": _image(px),
                "labels": torch.randint(0, config.num_labels, (BATCH, px, px))}
    if kind == "detect":
        return {"pixel_values": _image(px)}
    raise ValueError(kind)


def _hf(cls_name: str, config_name: str, inputs: str = "lm", **cfg: Any
        ) -> Callable[[], tuple[torch.nn.Module, tuple, dict]]:
    """huggingface.py's way: a config (small), the model class on it, random weights."""
    def build() -> tuple[torch.nn.Module, tuple, dict]:
        import transformers

        config = getattr(transformers, config_name)(**cfg)
        for k in DROPOUTS:
            if isinstance(getattr(config, k, None), float):
                setattr(config, k, 0.0)
        model = getattr(transformers, cls_name)(config)
        return model, (), _hf_inputs(inputs, config)
    return build


def _m(name: str, cls_name: str, config_name: str, inputs: str = "lm", train: bool = True,
       **cfg: Any) -> ZooModel:
    return ZooModel(name, "transformers", _hf(cls_name, config_name, inputs, **cfg), train)


TRANSFORMERS = [
    # encoders
    _m("hf_bert", "BertForMaskedLM", "BertConfig", **SMALL),
    _m("hf_bert_cls", "BertForSequenceClassification", "BertConfig", "cls", **SMALL),
    _m("hf_distilbert", "DistilBertForMaskedLM", "DistilBertConfig", n_layers=2, dim=64,
       n_heads=2, hidden_dim=128, vocab_size=512, max_position_embeddings=64),
    _m("hf_roberta", "RobertaForMaskedLM", "RobertaConfig",
       **{**SMALL, "max_position_embeddings": 66}),
    _m("hf_albert", "AlbertForMaskedLM", "AlbertConfig", embedding_size=32, **SMALL),
    _m("hf_electra", "ElectraForMaskedLM", "ElectraConfig", embedding_size=32, **SMALL),
    _m("hf_deberta_v2", "DebertaV2ForMaskedLM", "DebertaV2Config", **SMALL),
    _m("hf_mobilebert", "MobileBertForMaskedLM", "MobileBertConfig", embedding_size=32,
       intra_bottleneck_size=32, num_feedforward_networks=1,
       **{**SMALL, "num_attention_heads": 2}),
    # decoders
    _m("hf_gpt2", "GPT2LMHeadModel", "GPT2Config", n_layer=2, n_embd=64, n_head=2,
       vocab_size=512, n_positions=64, bos_token_id=0, eos_token_id=0),
    _m("hf_gpt_neo", "GPTNeoForCausalLM", "GPTNeoConfig", num_layers=2, hidden_size=64,
       num_heads=2, attention_types=[[["global", "local"], 1]], window_size=8, vocab_size=512,
       max_position_embeddings=64),
    _m("hf_opt", "OPTForCausalLM", "OPTConfig", num_hidden_layers=2, hidden_size=64,
       num_attention_heads=2, ffn_dim=128, word_embed_proj_dim=64, vocab_size=512,
       max_position_embeddings=64),
    _m("hf_bloom", "BloomForCausalLM", "BloomConfig", n_layer=2, hidden_size=64, n_head=2,
       vocab_size=512),
    _m("hf_llama", "LlamaForCausalLM", "LlamaConfig", **LLAMA),
    _m("hf_mistral", "MistralForCausalLM", "MistralConfig", sliding_window=8, **LLAMA),
    _m("hf_qwen2", "Qwen2ForCausalLM", "Qwen2Config", **LLAMA),
    _m("hf_gemma", "GemmaForCausalLM", "GemmaConfig", head_dim=16, **LLAMA),
    _m("hf_phi", "PhiForCausalLM", "PhiConfig", **LLAMA),
    _m("hf_mixtral", "MixtralForCausalLM", "MixtralConfig", num_local_experts=4,
       num_experts_per_tok=2, **LLAMA),
    # encoder-decoders
    _m("hf_t5", "T5ForConditionalGeneration", "T5Config", "seq2seq", num_layers=2,
       num_decoder_layers=2, d_model=64, d_kv=16, d_ff=128, num_heads=2, vocab_size=512,
       decoder_start_token_id=0),
    _m("hf_bart", "BartForConditionalGeneration", "BartConfig", "seq2seq", **SEQ2SEQ),
    _m("hf_marian", "MarianMTModel", "MarianConfig", "seq2seq", decoder_start_token_id=0,
       pad_token_id=0, **SEQ2SEQ),
    _m("hf_whisper", "WhisperForConditionalGeneration", "WhisperConfig", "whisper",
       num_mel_bins=16, max_source_positions=16, max_target_positions=32,
       decoder_start_token_id=1, pad_token_id=0, bos_token_id=0, eos_token_id=0,
       **{k: v for k, v in SEQ2SEQ.items()
                                    if k != "max_position_embeddings"}),
    _m("hf_wav2vec2", "Wav2Vec2ForCTC", "Wav2Vec2Config", "audio", hidden_size=64,
       num_hidden_layers=2, num_attention_heads=2, intermediate_size=128, conv_dim=(16, 16),
       conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=16,
       num_conv_pos_embedding_groups=2, vocab_size=32),
    # vision
    _m("hf_vit", "ViTForImageClassification", "ViTConfig", "image", **VIT),
    _m("hf_deit", "DeiTForImageClassification", "DeiTConfig", "image", **VIT),
    _m("hf_swin", "SwinForImageClassification", "SwinConfig", "image", image_size=32,
       patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[1, 2], window_size=4,
       num_labels=10),
    _m("hf_resnet", "ResNetForImageClassification", "ResNetConfig", "image", image_size=32,
       embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], num_labels=10),
    _m("hf_convnext", "ConvNextForImageClassification", "ConvNextConfig", "image",
       image_size=32, num_stages=2, hidden_sizes=[16, 32], depths=[1, 1], num_labels=10),
    _m("hf_efficientnet", "EfficientNetForImageClassification", "EfficientNetConfig", "image",
       image_size=32, width_coefficient=0.25, depth_coefficient=0.25, hidden_dim=320,
       num_labels=10),
    _m("hf_mobilenet_v2", "MobileNetV2ForImageClassification", "MobileNetV2Config", "image",
       image_size=32, depth_multiplier=0.35, num_labels=10),
    _m("hf_segformer", "SegformerForSemanticSegmentation", "SegformerConfig", "segment",
       image_size=32, num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1],
       hidden_sizes=[16, 32], patch_sizes=[7, 3], strides=[4, 2], num_attention_heads=[1, 2],
       mlp_ratios=[2, 2], decoder_hidden_size=32, num_labels=4),
    _m("hf_yolos", "YolosForObjectDetection", "YolosConfig", "detect", train=False,
       image_size=[32, 32], patch_size=8, num_detection_tokens=5, hidden_size=64,
       num_hidden_layers=2, num_attention_heads=2, intermediate_size=128, num_labels=3),
]

MODELS: dict[str, ZooModel] = {m.name: m for m in (*TIMM, *TORCHVISION, *TRANSFORMERS)}
