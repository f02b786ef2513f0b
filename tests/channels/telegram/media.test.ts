import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { contentJson, startBot } from "./_fixtures.ts";

describe("Telegram channel media", () => {
  test("a photo becomes '[Photo message] Caption: …' with an image media item whose dataFetcher downloads the bytes", async () => {
    await using bot = await startBot();
    const bytes = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4]);
    const small = bot.server.addFile(new Uint8Array([1]), "photos/small.jpg");
    const large = bot.server.addFile(bytes, "photos/large.jpg");
    bot.server.pushMessage({
      photo: [
        {
          file_id: small.file_id,
          file_unique_id: small.file_unique_id,
          width: 90,
          height: 90,
          file_size: 1,
        },
        {
          file_id: large.file_id,
          file_unique_id: large.file_unique_id,
          width: 800,
          height: 600,
          file_size: 8,
        },
      ],
      caption: "look https://pics.example/1",
      caption_entities: [{ type: "url", offset: 5, length: 22 }],
    });
    const [message] = await bot.received(1);
    const json = contentJson(message!);
    assert.equal(json.message, "[Photo message] Caption: look https://pics.example/1");
    assert.equal(json.type, "photo");
    assert.deepEqual(json.links, ["https://pics.example/1"]);
    assert.deepEqual(json.media, {
      file_id: large.file_id,
      file_size: 8,
      width: 800,
      height: 600,
      mime_type: "image/jpeg",
    });
    assert.equal(message!.media.length, 1);
    const [item] = message!.media;
    assert.equal(item?.type, "image");
    assert.equal(item?.mimeType, "image/jpeg");
    assert.deepEqual(await item!.dataFetcher!(), bytes);
    assert.equal(bot.server.callsOf("getFile")[0]?.params.file_id, large.file_id);
    assert.equal(
      await item!.getUrl(),
      `data:image/jpeg;base64,${btoa(String.fromCharCode(...bytes))}`,
    );
  });

  test("files over 2 MiB are not downloaded (dataFetcher gives null without calling getFile)", async () => {
    await using bot = await startBot();
    bot.server.pushMessage({
      document: {
        file_id: "huge",
        file_unique_id: "u",
        file_name: "dump.bin",
        file_size: 3 * 1024 * 1024,
      },
    });
    const [message] = await bot.received(1);
    assert.equal(contentJson(message!).message, "[Document: dump.bin (application/octet-stream)]");
    const [item] = message!.media;
    assert.equal(item?.type, "document");
    assert.equal(item?.filename, "dump.bin");
    assert.equal(await item!.dataFetcher!(), null);
    assert.equal(bot.server.callsOf("getFile").length, 0);
  });

  test("a failed download gives null instead of failing the turn", async () => {
    await using bot = await startBot();
    bot.server.pushMessage({ voice: { file_id: "missing", file_unique_id: "m", duration: 3 } });
    const [message] = await bot.received(1);
    assert.equal(contentJson(message!).message, "[Voice message: 3s]");
    assert.equal(message!.media[0]?.mimeType, "audio/ogg");
    assert.equal(await message!.media[0]!.dataFetcher!(), null);
    assert.equal(bot.server.callsOf("getFile").length, 1);
  });

  test("the replied-to message's media is appended after the message's own", async () => {
    await using bot = await startBot();
    const file = bot.server.addFile(new Uint8Array([7, 7]), "music/song.mp3");
    const original = bot.server.buildMessage({
      audio: {
        file_id: file.file_id,
        file_unique_id: "a",
        duration: 61,
        title: "Song",
        performer: "Band",
      },
    });
    bot.server.pushText("what is this?", { replyTo: original });
    const [message] = await bot.received(1);
    const reply = contentJson(message!).reply_to_message as Record<string, unknown>;
    assert.equal(reply.message, "[Audio: Band - Song (61s)]");
    assert.equal(message!.media.length, 1);
    assert.equal(message!.media[0]?.type, "audio");
    assert.equal(message!.media[0]?.mimeType, "audio/mpeg");
    assert.deepEqual(await message!.media[0]!.dataFetcher!(), new Uint8Array([7, 7]));
  });
});
