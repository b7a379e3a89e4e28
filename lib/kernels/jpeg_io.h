// JPEG decoding and encoding in memory with libjpeg-turbo, as TensorFlow's
// lib/jpeg (jpeg_mem.cc, jpeg_handle.cc) does it, so that DecodeJpeg and
// EncodeJpeg give TensorFlow's bytes for the same libjpeg-turbo:
//  - the memory source inserts a fake EOI marker for a truncated stream only
//    when asked to recover; otherwise reading stops and the unread rows are
//    black (accepted when at least `min_fraction` of them were read);
//  - CMYK/YCCK images come out as RGB by TensorFlow's arithmetic;
//  - a crop window is cut with jpeg_crop_scanline / jpeg_skip_scanlines.
#ifndef DFG_LIB_KERNELS_JPEG_IO_H_
#define DFG_LIB_KERNELS_JPEG_IO_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace dfg {

struct JpegDecodeFlags {
  int ratio = 1;       // 1, 2, 4 or 8
  int components = 0;  // 0 (as in the file, CMYK as RGB), 1 or 3
  bool fancy_upscaling = true;
  bool try_recover_truncated = false;
  float min_fraction = 1.0f;
  bool integer_accurate = false;  // JDCT_ISLOW; else JDCT_IFAST (TF's default)
  bool crop = false;
  int crop_x = 0, crop_y = 0, crop_width = 0, crop_height = 0;
};

// Decodes `data`; `allocate(width, height, channels)` returns the row-major
// output buffer (nullptr to give up). False on any failure.
bool DecodeJpeg(std::string_view data, const JpegDecodeFlags& flags,
                const std::function<uint8_t*(int, int, int)>& allocate);

// Height, width and output components from the header; false if invalid.
bool JpegShape(std::string_view data, int* height, int* width, int* components);

struct JpegEncodeFlags {
  int channels = 3;  // 1 (grayscale) or 3 (RGB)
  int quality = 95;
  bool progressive = false;
  bool optimize_size = false;
  bool chroma_downsampling = true;
  int density_unit = 1;  // 1: dots per inch, 2: per cm
  int x_density = 300, y_density = 300;
  std::string xmp_metadata;
};

// Encodes a height x width x channels uint8 image; false on failure.
bool EncodeJpeg(const uint8_t* image, int width, int height,
                const JpegEncodeFlags& flags, std::string* out);

}  // namespace dfg

#endif  // DFG_LIB_KERNELS_JPEG_IO_H_
