// AttnScope — token ids and decoded text from Hugging Face's own tokenizers library (npm
// @anush008/tokenizers, its Rust core with a prebuilt binary): the reference side of
// hf_tokenizer_reference_test.sh. Per string of CASES: a JSON array of ids (special tokens
// added), then the JSON string decode gives for them (special tokens kept).
//   node hf_tokenizer_reference.js NPM_DIR TOKENIZER_JSON CASES_JSON
const path = require("path");
const fs = require("fs");
const [npmDir, file, casesFile] = process.argv.slice(2);
const { Tokenizer } = require(path.join(npmDir, "node_modules", "@anush008", "tokenizers"));
(async () => {
  const tok = Tokenizer.fromFile(file);
  const out = [];
  for (const text of JSON.parse(fs.readFileSync(casesFile, "utf-8"))) {
    const ids = (await tok.encode(text, null, { addSpecialTokens: true })).getIds();
    out.push(JSON.stringify(ids), JSON.stringify(await tok.decode(ids, false)));
  }
  process.stdout.write(out.join("\n") + "\n");
})().catch((e) => {
  console.error("FAIL: the tokenizers library refused " + file + ": " + e);
  process.exit(1);
});
