// AttnScope — `attnscope --help`: the usage text, gathered from each command's own part.
// GPL-3.0-or-later.
#include "attn/io/formats.hpp"
#include "cli/attribute_command.hpp"
#include "cli/batch_command.hpp"
#include "cli/cli_request.hpp"
#include "cli/cli_tr.hpp"
#include "cli/generate_command.hpp"
#include "cli/intervention_options.hpp"
#include "cli/scene_options.hpp"
#include "cli/seq2seq_command.hpp"
#include "export/export_options.hpp"

namespace cli {

QStringList viewNames() {
    return QStringLiteral(
               "heads model playground lines tokens neuron census rollout qk logit-lens "
               "attribution patching alignment")
        .split(QLatin1Char(' '));
}

QString helpText() {
    return tr("Usage:\n"
              "  attnscope [--new-window] [FILE]       open the graphical application; FILE\n"
              "                                        goes to this user's running window,\n"
              "                                        unless --new-window\n"
              "  attnscope render [FILE] [options] -o OUT.png|svg|pdf\n"
              "  attnscope compute [FILE] [options] [--rollout] -o OUT.npz|json\n"
              "  attnscope census [FILE] [--component NAME] -o OUT.csv|json\n"
              "  attnscope patch --model DIR --clean T1 --corrupt T2 --answer ID1 --wrong ID2\n"
              "                  -o OUT.npz            activation patching\n"
              "  attnscope generate --model DIR --text T [--tokens N] [options] -o OUT.npz\n"
              "  attnscope batch --model DIR --dataset FILE.jsonl --analysis NAME -o OUT.npz\n"
              "  attnscope merge OUT_0.npz OUT_1.npz … -o OUT.npz\n"
              "  attnscope attribute --model DIR --text T [options] -o OUT.npz\n"
              "                                        what each token contributed\n"
              "  attnscope --help | --version\n"
              "\n"
              "FILE: known by its opening bytes, then by its extension; without FILE, the\n"
              "default scene. The formats:\n") +
           QString::fromStdString(attn::io::help_format_list()) +
           tr("\n"
              "render options:\n"
              "  --view NAME              heads (default) | model | playground | lines |\n"
              "                           tokens | neuron | census | rollout | qk | lens:NAME\n"
              "  --layer L                layer of multi-layer data, from 0 (default 0)\n"
              "  --head H                 show head H (from 0) alone, or frame it (model)\n"
              "  --query Q                the selected query, from 0 (default 1)\n"
              "  --component NAME         Encoder / Decoder / Cross / … or its index\n"
              "  --size WxH               figure size in logical pixels (default 1200x900)\n"
              "  --dpi N                  PNG resolution: WxH × N/96 pixels (default 96)\n"
              "  --colormap NAME          viridis | magma | cividis | greys\n"
              "  -o, --output OUT         .png, .svg or .pdf (render); .npz or .json (compute);\n"
              "                           .csv or .json (census); written to a unique temporary\n"
              "                           file beside OUT, then renamed over it when whole,\n"
              "                           keeping OUT's permissions. Refused: OUT a symbolic\n"
              "                           link, a folder or device, or one of the inputs\n"
              "  --force                  replace OUT even when it is read-only\n"
              "  --stages LIST            compute: raw,scaled,softcapped,masked,weights,output\n"
              "                           (default all; softcapped when a layer soft-caps)\n"
              "  --model DIR              run the Hugging Face folder DIR (GPT-2, Llama, Mistral,\n"
              "                           Qwen2/3, Phi-3, OLMo-2, Mixtral, Gemma 2/3, GPT-NeoX,\n"
              "                           BERT; Marian, T5 with --target; safetensors), or a\n"
              "                           GGUF file (llama, qwen2, phi3, gemma2, gemma3; F32,\n"
              "                           F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K,\n"
              "                           Q6_K), on --text instead of a FILE; compute adds\n"
              "                           token_ids [n], logits [vocab];\n"
              "                           the output stage is each head's α·V [L,H,n,d_k]\n"
              "  --layers L0,L1           --model: the layers (from 0) where --no-scale, --mask,\n"
              "                           --temperature, --no-rotary and --no-softcap apply\n"
              "                           inside the run (default all; the others run as the\n"
              "                           model does: scaled, τ = 1, its own mask, rotary on)\n"
              "  --no-rotary              --model: rotary positions off (every rotary family)\n"
              "  --no-softcap             --model: soft-capping of the scores off (Gemma 2)\n"
              "  --memory-budget SIZE     refuse requests needing more memory, e.g. 4G, 512M\n"
              "                           (decimal, at least one byte; default: half the\n"
              "                           physical memory)\n"
              "\n"
              "compute: --rollout adds rollout [L,Nq,Nk], the attention rollout of every layer\n"
              "(self-attention only). census: a pattern label and six scores per layer x head\n"
              "(see docs/census.md).\n"
              "\n"
              "scene options (as the controls dock):\n") +
           sceneOptionsHelp() + QStringLiteral("\n") + interventionOptionsHelp() + generateHelp() +
           seq2seqHelp() + batchHelp() + attributeHelp() +
           tr("\n"
              "Exit codes: 0 ok, 1 usage error, 2 input file error, 3 output error,\n"
              "4 refused: more memory or disk than the budget or the free space allows,\n"
              "70 internal error (please report it).\n"
              "Numbers are finite decimals; each option is given once; an option that does not\n"
              "apply to the input (--text with FILE, --heads with loaded data or --model) is\n"
              "refused. Without a display the offscreen platform is used automatically.\n");
}

}  // namespace cli
