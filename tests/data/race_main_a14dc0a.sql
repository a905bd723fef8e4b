BEGIN TRANSACTION;
CREATE TABLE artifacts (
    digest TEXT PRIMARY KEY,
    size   INTEGER NOT NULL,
    data   BLOB NOT NULL
);
CREATE TABLE events (
    run_id       TEXT NOT NULL,
    seq          INTEGER NOT NULL,
    kind         TEXT NOT NULL,
    step         INTEGER,
    payload_json TEXT NOT NULL,
    incarnation  INTEGER NOT NULL,
    at           REAL NOT NULL,
    
    
    digest       BLOB NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
INSERT INTO "events" VALUES('crashed',1,'run_started',NULL,'{"input":null,"workflow":"quote"}',0,10.0,X'B41B59AC7AA3689FFB0647B9D02230D17E012DB674DCC2CA58FE4B4973E6302A');
INSERT INTO "events" VALUES('crashed',2,'transition',NULL,'{"event":"claim","worker_id":"w-862275e9"}',1,10.0,X'8CAE1B8A83C6502926722180447B0B659D90E02583A8C8590B3BFF0479CF1ECD');
INSERT INTO "events" VALUES('crashed',3,'wave',NULL,'{"fanout":0,"race":true,"steps":[0,1,2],"wave":0}',1,10.0,X'0BB7A353263E9B093B7D14DFC33F37FF77FD097C668B2BD0EFA751406975C433');
INSERT INTO "events" VALUES('crashed',4,'intent',0,'{"args":{"sku":"A-42"},"args_digest":"sha256:ecdaf5291a21246521134710a2eee97096b53cb37c1b6e76a965bbe93a5dcf36","effect":"pure","effect_key":"ek_170bcc1812f8f8f02fd1d462bfb09b8e","tool":"eu"}',1,10.0,X'1CDA1414F013A8E0AD7AFDA4222C74D730849E2E04D2C5B1F3F1FCBDF86AB148');
INSERT INTO "events" VALUES('crashed',5,'intent',1,'{"args":{"sku":"A-42"},"args_digest":"sha256:ecdaf5291a21246521134710a2eee97096b53cb37c1b6e76a965bbe93a5dcf36","effect":"pure","effect_key":"ek_203ce5ac7b07d6d89c03cc3109f23f92","tool":"us"}',1,10.0,X'35FF3E8DDA3C93808EB74947B1F35D7921F40C1370AE2F1088E73E5D3BB2D0E6');
INSERT INTO "events" VALUES('crashed',6,'intent',2,'{"args":{"sku":"A-42"},"args_digest":"sha256:ecdaf5291a21246521134710a2eee97096b53cb37c1b6e76a965bbe93a5dcf36","effect":"pure","effect_key":"ek_453acec6da819eb5711092396fe2a2d7","tool":"ch"}',1,10.0,X'DF44E0CBAFC3DD2BFD460551B991477D143C8B36D56E5CB85A901EFCED88C5C4');
INSERT INTO "events" VALUES('crashed',7,'tool_result',1,'{"effect_key":"ek_203ce5ac7b07d6d89c03cc3109f23f92","value":{"cents":900,"mirror":"us"}}',1,10.1,X'61CB699DCAE8739314E0BF8145750020368DB4909DAAB822F3FDCDEB496C51F9');
INSERT INTO "events" VALUES('crashed',8,'tool_error',0,'{"effect_key":"ek_170bcc1812f8f8f02fd1d462bfb09b8e","error":{"attrs":{"effect_key":"ek_170bcc1812f8f8f02fd1d462bfb09b8e","tool":"eu"},"module":"minirt.race","type":"EntrantCancelled"}}',1,10.1,X'45E4D639114D17B23B7E45B50EEEBD6661921F1B36F8C9471C4E04F16CFF6BFA');
INSERT INTO "events" VALUES('crashed',9,'tool_error',2,'{"effect_key":"ek_453acec6da819eb5711092396fe2a2d7","error":{"attrs":{"effect_key":"ek_453acec6da819eb5711092396fe2a2d7","tool":"ch"},"module":"minirt.race","type":"EntrantCancelled"}}',1,10.1,X'3E5BFD39EA39E2852002FB161CD863CA6EF06898534ED902844FD4D7B241F9C2');
INSERT INTO "events" VALUES('crashed',10,'decision',3,'{"name":"race","output":{"order":["us"],"outcomes":{"ch":"cancelled","eu":"cancelled","us":"won"},"want":1,"winners":["us"]},"prompt_digest":"sha256:f6a75b5a3ed0183c7d89de4f7a2954a3810e581f36269adda22c86aa31dadc2d"}',1,10.1,X'1A65ED8067AC8D5618FE3E9A491B75CA89E469B985E8B1A41D9CC14DEEF4074A');
INSERT INTO "events" VALUES('done',1,'run_started',NULL,'{"input":null,"workflow":"quote"}',0,0.0,X'5C51FDEFF6F3DDCC3AD4BB807409F9500F03741BFAE8575BA7F14D801460972D');
INSERT INTO "events" VALUES('done',2,'transition',NULL,'{"event":"claim","worker_id":"w-16ced6a7"}',1,0.0,X'231B30561B70D2B5FA075512E3D7D72964A51627831B2B245A3CA3CD94A48EA7');
INSERT INTO "events" VALUES('done',3,'wave',NULL,'{"fanout":0,"race":true,"steps":[0,1,2],"wave":0}',1,0.0,X'AFD26FE1F461EA199312D8C9DCCF479FCBF4932F203E3F821506062641A0D729');
INSERT INTO "events" VALUES('done',4,'intent',0,'{"args":{"sku":"A-42"},"args_digest":"sha256:ecdaf5291a21246521134710a2eee97096b53cb37c1b6e76a965bbe93a5dcf36","effect":"pure","effect_key":"ek_ec857f052dfe46814199b1e10e91d4aa","tool":"eu"}',1,0.0,X'DA07D8EA2F6407A78FE26434D86A3195611FDA97F5AC2DE515A9998F1C0B81D3');
INSERT INTO "events" VALUES('done',5,'intent',1,'{"args":{"sku":"A-42"},"args_digest":"sha256:ecdaf5291a21246521134710a2eee97096b53cb37c1b6e76a965bbe93a5dcf36","effect":"pure","effect_key":"ek_b932099572fb298c6e641ce044936e5d","tool":"us"}',1,0.0,X'A0A07D04AA11F24D194BB0C117936022BC3F9992DFB8C22B860D6F899C4D152B');
INSERT INTO "events" VALUES('done',6,'intent',2,'{"args":{"sku":"A-42"},"args_digest":"sha256:ecdaf5291a21246521134710a2eee97096b53cb37c1b6e76a965bbe93a5dcf36","effect":"pure","effect_key":"ek_245ba996fd5cdad7111f01ed2d975952","tool":"ch"}',1,0.0,X'720FE7073C1344345D5D5B376A0178DDA802D7D6AD45828B76F33BA58EC85160');
INSERT INTO "events" VALUES('done',7,'tool_result',1,'{"effect_key":"ek_b932099572fb298c6e641ce044936e5d","value":{"cents":900,"mirror":"us"}}',1,0.1,X'7924CE3108D9D8A0E8461C3BC7AD441330346AF0EE6F285A9D23D1989455E2AE');
INSERT INTO "events" VALUES('done',8,'tool_error',0,'{"effect_key":"ek_ec857f052dfe46814199b1e10e91d4aa","error":{"attrs":{"effect_key":"ek_ec857f052dfe46814199b1e10e91d4aa","tool":"eu"},"module":"minirt.race","type":"EntrantCancelled"}}',1,0.1,X'E63225F2E87122662BCED4D5D1A7FB4473A85857FDBA615D05D03B7472E00640');
INSERT INTO "events" VALUES('done',9,'tool_error',2,'{"effect_key":"ek_245ba996fd5cdad7111f01ed2d975952","error":{"attrs":{"effect_key":"ek_245ba996fd5cdad7111f01ed2d975952","tool":"ch"},"module":"minirt.race","type":"EntrantCancelled"}}',1,0.1,X'641E79C230A49312290DCD9AB882354708FCF3159EFD7B8453132B5EF7C4FD1B');
INSERT INTO "events" VALUES('done',10,'decision',3,'{"name":"race","output":{"order":["us"],"outcomes":{"ch":"cancelled","eu":"cancelled","us":"won"},"want":1,"winners":["us"]},"prompt_digest":"sha256:f6a75b5a3ed0183c7d89de4f7a2954a3810e581f36269adda22c86aa31dadc2d"}',1,0.1,X'30D7315A657CF9B12144A01252B07E8FAEAB31BD737BA64924462DE69F8550DE');
INSERT INTO "events" VALUES('done',11,'transition',NULL,'{"event":"complete","result":{"outcomes":{"ch":"cancelled","eu":"cancelled","us":"won"},"value":{"cents":900,"mirror":"us"},"winner":"us"},"worker_id":"w-16ced6a7"}',1,0.1,X'B5B95FC9931C8AF65FCFF92703DAB086482FDDA56995462BFE250726A6267845');
CREATE TABLE kv (
    run_id TEXT NOT NULL,
    key    TEXT NOT NULL,
    value  TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
) WITHOUT ROWID;
CREATE TABLE runs (
    run_id           TEXT PRIMARY KEY,
    workflow         TEXT NOT NULL,
    input_json       TEXT NOT NULL,
    state            TEXT NOT NULL,
    revision         INTEGER NOT NULL,
    incarnation      INTEGER NOT NULL,   
    worker_id        TEXT,
    lease_expires_at REAL,
    detail_json      TEXT NOT NULL DEFAULT '{}',
    last_seq         INTEGER NOT NULL DEFAULT 0,
    last_digest      TEXT NOT NULL,
    created_at       REAL NOT NULL,
    updated_at       REAL NOT NULL
);
INSERT INTO "runs" VALUES('done','quote','null','succeeded',2,1,NULL,NULL,'{"result": {"outcomes": {"ch": "cancelled", "eu": "cancelled", "us": "won"}, "value": {"cents": 900, "mirror": "us"}, "winner": "us"}}',11,'sha256:b5b95fc9931c8af65fcff92703dab086482fdda56995462bfe250726a6267845',0.0,0.1);
INSERT INTO "runs" VALUES('crashed','quote','null','running',1,1,'w-862275e9',40.1,'{}',10,'sha256:1a65ed8067ac8d5618fe3e9a491b75ca89e469b985e8b1a41d9cc14deef4074a',10.0,10.0);
CREATE INDEX runs_claimable ON runs(state, lease_expires_at);
COMMIT;
