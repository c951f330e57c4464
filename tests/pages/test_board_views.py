import csv
import io
import json

import pytest
from bs4 import BeautifulSoup

from leaderboard.models import LanguageModel
from tests.pages.builders import DA_DATASETS, EntrySpec, build_board


def board_names(html: str) -> list[str]:
    """Entry names in table order (the row headers), from the parsed page."""
    return [th["data-v"] for th in BeautifulSoup(html, "html.parser").select('#board-table th.c-model[scope="row"]')]


@pytest.mark.django_db
def test_board_page_shows_ranked_then_unranked_with_cis(client, da_board):
    response = client.get("/leaderboards/da/")
    assert response.status_code == 200
    html = response.content.decode()
    names = board_names(html)
    assert names == [
        "claude-sonnet-4-6",
        "acme/big-chat-70b",
        "acme/big-chat-70b (zero-shot)",
        "acme/base-7b",
        "danish/bert-base",
        "tiny/encoder-s",
        "acme/mid-13b",
    ]
    # Unranked entry after the ranked ones, with what it misses.
    unranked = html.split('<tbody class="unranked">', 1)[1]
    assert "acme/mid-13b" in unranked and "missing: dane" in unranked
    # Rank score with its interval, one column per task and per dataset.
    top = da_board.entries[0]  # written by the real aggregation
    assert f"{top.rank_score:.2f}" in html and f"{top.rank_score_ci_low:.2f}–{top.rank_score_ci_high:.2f}" in html
    for name, _ in DA_DATASETS:
        assert f'data-key="ds:{name}"' in html
    assert 'data-key="task:named-entity-recognition"' in html
    # Model links and type icons with titles.
    assert 'href="/models/acme/big-chat-70b/"' in html
    assert 'href="/models/claude-sonnet-4-6/"' in html
    assert 'title="Reasoning decoder"' in html
    # Plotly is served from static files, never a CDN.
    assert "/static/vendor/plotly-cartesian.min.js" in html
    assert "cdn" not in html.lower()


@pytest.mark.django_db
def test_dataset_cell_shows_primary_and_secondary_with_cis(client, da_board):
    entry = da_board.entries[0]
    cell = entry.scores["scala-da"]
    html = client.get("/leaderboards/da/").content.decode()
    expected = (
        f'{cell["primary"]["mean"]:.2f}<span class="ci">±{cell["primary"]["ci"]:.2f}</span> '
        f'<span class="sec">/ {cell["secondary"]["mean"]:.2f}'
    )
    assert expected in html


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query, expected",
    [
        ("type=encoder", {"danish/bert-base", "tiny/encoder-s"}),
        ("type=encoder&type=reasoning", {"danish/bert-base", "tiny/encoder-s", "claude-sonnet-4-6"}),
        ("size=lt2", {"danish/bert-base", "tiny/encoder-s"}),
        ("size=2-10", {"acme/base-7b"}),
        ("size=10-40", {"acme/mid-13b"}),
        ("size=40-80", {"acme/big-chat-70b", "acme/big-chat-70b (zero-shot)"}),
        ("size=ge80", set()),
        ("size=unknown", {"claude-sonnet-4-6"}),
        ("shots=zero", {"acme/big-chat-70b (zero-shot)"}),
        ("q=ACME", {"acme/big-chat-70b", "acme/big-chat-70b (zero-shot)", "acme/base-7b", "acme/mid-13b"}),
        ("type=base&size=2-10", {"acme/base-7b"}),
        ("type=bogus&size=nonsense&shots=maybe", None),  # unknown values are ignored: everything
    ],
)
def test_filters_are_server_side(client, da_board, query, expected):
    response = client.get(f"/leaderboards/da/?{query}")
    assert response.status_code == 200
    names = set(board_names(response.content.decode()))
    if expected is None:
        assert len(names) == 7
    else:
        assert names == expected


@pytest.mark.django_db
def test_filter_state_is_kept_in_the_form_and_export_links(client, da_board):
    html = client.get("/leaderboards/da/?type=base&size=2-10&q=acme&shots=few").content.decode()
    assert 'name="type" value="base" checked' in html
    assert 'name="size" value="2-10" checked' in html
    assert 'name="shots" value="few" checked' in html
    assert 'name="q" value="acme"' in html
    assert "/leaderboards/da/export.csv?type=base&amp;size=2-10&amp;shots=few&amp;q=acme" in html


@pytest.mark.django_db
def test_server_side_sort_keeps_unranked_last(client, da_board):
    html = client.get("/leaderboards/da/?sort=params&dir=desc").content.decode()
    names = board_names(html)
    # Ranked by size, largest first, unknown size last; the unranked entry stays after them.
    assert names == [
        "acme/big-chat-70b",
        "acme/big-chat-70b (zero-shot)",
        "acme/base-7b",
        "danish/bert-base",
        "tiny/encoder-s",
        "claude-sonnet-4-6",
        "acme/mid-13b",
    ]
    html = client.get("/leaderboards/da/?sort=ds:dane").content.decode()
    names = board_names(html)
    assert names[0] == "tiny/encoder-s" and names[-1] == "acme/mid-13b"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query", ["", "type=instruction-tuned", "q=bert", "size=unknown&shots=few", "sort=model&dir=desc"]
)
def test_csv_export_matches_what_is_shown(client, da_board, query):
    shown = board_names(client.get(f"/leaderboards/da/?{query}").content.decode())
    response = client.get(f"/leaderboards/da/export.csv?{query}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert response["Content-Disposition"] == 'attachment; filename="glossa-da-leaderboard.csv"'
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [r["name"] for r in rows] == shown
    payload = client.get(f"/leaderboards/da/export.json?{query}").json()
    # a filtered download keeps each row's place on the whole board, it does not renumber
    assert [int(r["position"]) for r in rows] == [e["position"] for e in payload["entries"]]
    assert [e["name"] for e in payload["entries"]] == shown
    assert payload["num_entries_shown"] == len(shown)
    # the page's download is the API's document, filtered to the rows shown
    api = client.get("/api/leaderboards/da.json").json()
    by_key = {(e["model"], e["few_shot"], e["validation_split"]): e for e in api["entries"]}
    assert payload["entries"] == [
        by_key[(e["model"], e["few_shot"], e["validation_split"])] for e in payload["entries"]
    ]
    assert {
        k: v for k, v in payload.items() if k not in ("entries", "filters", "num_entries_shown", "num_entries_total")
    } == {k: v for k, v in api.items() if k != "entries"}
    assert payload["num_entries_total"] == len(api["entries"])
    assert [e["position"] for e in api["entries"]] == list(range(1, len(api["entries"]) + 1))


@pytest.mark.django_db
def test_a_download_skips_a_row_whose_entry_is_gone(da_board):
    """The page's rows are cached per board version; an entry deleted after they were read
    (a re-aggregation in between) is left out of the download instead of failing it."""
    from leaderboard import selectors
    from leaderboard.selectors.export import document_csv, shown_document

    board = selectors.get_board("da")
    gone = da_board.entries[1]
    gone.delete()
    doc = shown_document(board)
    assert len(board.rows) == len(da_board.entries) and doc["num_entries_shown"] == len(board.rows) - 1
    gone_key = (gone.model.model_id, gone.few_shot, gone.validation_split)
    assert gone_key not in [(e["model"], e["few_shot"], e["validation_split"]) for e in doc["entries"]]
    assert [e["position"] for e in doc["entries"]] == list(range(1, len(doc["entries"]) + 1))
    assert len(document_csv(doc).splitlines()) == len(board.rows)  # header + the entries still there


@pytest.mark.django_db
def test_csv_export_values(client, da_board):
    rows = list(csv.DictReader(io.StringIO(client.get("/leaderboards/da/export.csv").content.decode())))
    top = rows[0]
    entry = da_board.entries[0]
    assert top["name"] == "claude-sonnet-4-6" and top["rank"] == "1" and top["model_type"] == "reasoning"
    assert float(top["rank_score"]) == pytest.approx(entry.rank_score)
    assert float(top["rank_score_ci_low"]) == pytest.approx(entry.rank_score_ci_low)
    assert float(top["scala-da_primary_mean"]) == pytest.approx(entry.scores["scala-da"]["primary"]["mean"])
    assert float(top["scala-da_secondary_ci"]) == pytest.approx(entry.scores["scala-da"]["secondary"]["ci"])
    last = rows[-1]
    assert last["rank"] == "" and last["missing_datasets"] == "dane" and last["dane_primary_mean"] == ""
    doc = client.get("/leaderboards/da/export.json").json()
    assert doc["language"] == "da"
    assert "dane" not in doc["entries"][-1]["scores"]
    assert doc["entries"][0]["rank_score_ci"] == [
        pytest.approx(entry.rank_score_ci_low),
        pytest.approx(entry.rank_score_ci_high),
    ]


@pytest.mark.django_db
def test_unknown_board_and_export_format_are_404(client, da_board):
    assert client.get("/leaderboards/xx/").status_code == 404
    assert client.get("/leaderboards/xx/export.csv").status_code == 404
    assert client.get("/leaderboards/da/export.xml").status_code == 404
    response = client.get("/leaderboards/")
    assert response.status_code == 302 and response["Location"] == "/"


@pytest.mark.django_db
def test_names_and_search_are_escaped(client, db):
    build_board(entries=[EntrySpec('evil/<script>alert("x")</script>', quality=0.7)])
    html = client.get("/leaderboards/da/?q=<img src=x onerror=alert(1)>").content.decode()
    assert "<script>alert" not in html
    assert "<img src=x" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    html = client.get("/leaderboards/da/").content.decode()
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    # The chart JSON cannot close its <script> element either.
    chart = html.split('id="scatter-data">', 1)[1].split("</script>", 1)[0]
    assert "\\u003cscript\\u003e" in chart.lower()
    assert json.loads(chart)["data"][0]["customdata"][0][0] == 'evil/<script>alert("x")</script>'


@pytest.mark.django_db
def test_group_board_has_per_language_columns(client, db):
    build_board("scandinavian", "Scandinavian", kind="group", boards=["da", "sv", "no"])
    html = client.get("/leaderboards/scandinavian/").content.decode()
    for code, name in (("da", "Danish"), ("sv", "Swedish"), ("no", "Norwegian")):
        assert f'data-key="lang:{code}"' in html and f">{name}</a>" in html
        assert f'href="/leaderboards/{code}/"' in html
    # Scores per dataset live on the language boards, not on the group board.
    assert 'data-key="ds:' not in html and 'data-key="task:' not in html
    rows = list(csv.DictReader(io.StringIO(client.get("/leaderboards/scandinavian/export.csv").content.decode())))
    assert float(rows[0]["sv_rank_score"]) == pytest.approx(float(rows[0]["rank_score"]))


@pytest.mark.django_db
@pytest.mark.parametrize("entries", [15, 150])
def test_board_page_query_count_is_constant(client, django_assert_max_num_queries, db, entries):
    from tests.pages.builders import synthetic_entries

    datasets = [(f"ds-{i}", "sentiment-classification") for i in range(6)]
    build_board(datasets=datasets, entries=synthetic_entries(entries))
    # Cold: the board, its version, its entries (with their models, one join).
    with django_assert_max_num_queries(3):
        response = client.get("/leaderboards/da/?type=base&type=encoder&sort=ds:ds-2")
    assert response.status_code == 200 and response.content.count(b'class="c-model"') > 1
    # Warm (rows cached for this board version): the board and its version.
    with django_assert_max_num_queries(2):
        assert client.get("/leaderboards/da/").status_code == 200
    # The download: the cached page rows (board, version) and the board's document (board, entries with models).
    with django_assert_max_num_queries(4):
        assert client.get("/leaderboards/da/export.csv").status_code == 200


@pytest.mark.django_db
def test_cached_rows_follow_changes_to_entries_and_models(client, da_board):
    assert b"danish/bert-base" in client.get("/leaderboards/da/").content
    LanguageModel.objects.filter(model_id="danish/bert-base").update(num_parameters=3_000_000_000)
    from django.utils import timezone

    LanguageModel.objects.filter(model_id="danish/bert-base").update(updated_at=timezone.now())
    names = set(board_names(client.get("/leaderboards/da/?size=2-10").content.decode()))
    assert names == {"acme/base-7b", "danish/bert-base"}


@pytest.mark.django_db
def test_scatter_has_one_point_per_sized_ranked_entry(client, da_board):
    html = client.get("/leaderboards/da/").content.decode()
    figure = json.loads(html.split('id="scatter-data">', 1)[1].split("</script>", 1)[0])
    assert figure["layout"]["xaxis"]["type"] == "log"
    points = {name for trace in figure["data"] for name, *_ in trace["customdata"]}
    # claude has no parameter count, mid-13b no rank score: both left out.
    assert points == {
        "acme/big-chat-70b",
        "acme/big-chat-70b (zero-shot)",
        "acme/base-7b",
        "danish/bert-base",
        "tiny/encoder-s",
    }
    assert {trace["name"] for trace in figure["data"]} == {"Instruction-tuned", "Base decoder", "Encoder"}


@pytest.mark.django_db
def test_empty_board_and_filters_matching_nothing(client, db):
    build_board("sv", "Swedish", entries=[])
    html = client.get("/leaderboards/sv/").content.decode()
    assert "This board has no entries yet." in html and 'id="board-table"' not in html
    build_board()
    html = client.get("/leaderboards/da/?q=nothing-like-this").content.decode()
    assert "No entries match these filters." in html and 'href="/leaderboards/da/"' in html
    assert client.get("/leaderboards/da/export.csv?q=nothing-like-this").content.decode().count("\n") == 1
